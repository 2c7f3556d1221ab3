// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {AccessControl} from "@openzeppelin/contracts/access/AccessControl.sol";
import {AccessControlDefaultAdminRules} from
    "@openzeppelin/contracts/access/extensions/AccessControlDefaultAdminRules.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {Pausable} from "@openzeppelin/contracts/utils/Pausable.sol";
import {RateLimiter} from "@openzeppelin/contracts/utils/RateLimiter.sol";
import {ReentrancyGuard} from "@openzeppelin/contracts/utils/ReentrancyGuard.sol";

/// @title RepoRewards v2, kept to test the migration to v3 (scripts/migrate-v2.ts); never deployed anew
/// @notice Anyone funds a pool per repository (XDC, ROXN or USDC); the
///         platform (operator) or a pool manager puts a bounty on an issue
///         from that pool and pays it to one contributor.
///         Invariant: no single key and no single block can move more than
///         the configured caps out of escrow per rolling day; an outflow
///         over a cap is queued, runs only after QUEUE_DELAY, and the
///         guardian can cancel it. A bounty somebody registered for (a
///         claim) ends in a payment, or in a refund that is requested
///         on-chain and runs only after CLAIM_CANCEL_DELAY.
///         The contract holds at least what it owes per currency: the sum of
///         the pools, the open bounties and the queued outflows.
/// @dev See docs/contracts.md for the trust model and the runbook.
contract RepoRewardsV2 is AccessControlDefaultAdminRules, Pausable, ReentrancyGuard {
    using SafeERC20 for IERC20;
    using RateLimiter for RateLimiter.SlidingWindow;

    enum Currency {
        XDC,
        ROXN,
        USDC
    }

    /// @dev Queued: paid over a cap, waiting in the outflow queue.
    enum BountyStatus {
        None,
        Open,
        Paid,
        Cancelled,
        Queued
    }

    struct Bounty {
        Currency currency;
        BountyStatus status;
        /// When a requested cancellation of a claimed bounty may run; 0: none requested.
        uint64 cancelReadyAt;
        address recipient;
        uint256 amount;
    }

    /// @dev A payout or withdrawal over a cap. issueNumber is 0 for a withdrawal.
    struct Outflow {
        uint256 repoId;
        uint256 issueNumber;
        uint256 amount;
        address to;
        uint64 readyAt;
        Currency currency;
        bool isPayout;
    }

    /// @dev OpenZeppelin's EnumerableSet needs Cancun (mcopy); XDC runs paris.
    struct AddressSet {
        address[] values;
        mapping(address => uint256) position;
    }

    /// @notice The platform: appoints pool managers (after managerDelay),
    ///         records claims, allocates, pays and cancels like a manager.
    bytes32 public constant OPERATOR_ROLE = keccak256("OPERATOR_ROLE");
    /// @notice Pauses at once and cancels queued outflows or scheduled admin
    ///         operations; moves nothing.
    bytes32 public constant GUARDIAN_ROLE = keccak256("GUARDIAN_ROLE");

    uint16 public constant MAX_FEE_BPS = 500;
    uint16 private constant BPS_DENOMINATOR = 10_000;
    /// @notice Role grants, fee, fee collector and cap changes wait this long.
    uint256 public constant ADMIN_DELAY = 2 days;
    /// @notice A queued outflow runs no earlier than this after it was queued.
    uint256 public constant QUEUE_DELAY = 2 days;
    /// @notice A claimed bounty's refund to the pool runs this long after it was requested.
    uint256 public constant CLAIM_CANCEL_DELAY = 3 days;
    /// @notice The smallest managerDelay on any chain but the local development chain.
    uint256 public constant MIN_MANAGER_DELAY = 1 days;
    uint256 public constant MAX_MANAGER_DELAY = 30 days;
    uint48 public constant CAP_WINDOW = 1 days;
    /// @notice Gas forwarded with a native transfer: enough for a smart wallet, not for a griefer.
    uint256 public constant NATIVE_TRANSFER_GAS = 50_000;
    uint256 private constant LOCAL_CHAIN_ID = 31337;

    IERC20 public immutable roxn;
    IERC20 public immutable usdc;
    /// @notice How long an operator's appointment of a pool manager waits.
    uint256 public immutable managerDelay;

    uint16 public feeBps;
    address public feeCollector;

    mapping(uint256 repoId => uint256[3] balances) private _pools;
    mapping(uint256 repoId => mapping(uint256 issueNumber => Bounty)) private _bounties;
    mapping(uint256 repoId => AddressSet) private _managers;
    mapping(uint256 repoId => mapping(address manager => uint256 readyAt)) private _pendingManagers;
    mapping(uint256 repoId => mapping(uint256 issueNumber => AddressSet)) private _claimants;
    /// @dev What the contract owes per currency: pools + open bounties + queued outflows.
    uint256[3] private _owed;
    /// @dev Outflow caps per currency: per repository (key = repoId) and in total (key 0).
    RateLimiter.SlidingWindow[3] private _repoCaps;
    RateLimiter.SlidingWindow[3] private _totalCaps;
    mapping(uint256 id => Outflow) private _queue;
    uint256 public nextOutflowId;
    /// @notice Admin operations scheduled by the hash of their calldata.
    mapping(bytes32 id => uint256 readyAt) public scheduledAt;

    event PoolFunded(
        uint256 indexed repoId, Currency currency, address indexed funder, uint256 gross, uint256 fee, uint256 net
    );
    event BountyAllocated(
        uint256 indexed repoId, uint256 indexed issueNumber, Currency currency, uint256 amount, address indexed by
    );
    event BountyPaid(
        uint256 indexed repoId,
        uint256 indexed issueNumber,
        Currency currency,
        uint256 amount,
        address indexed contributor,
        address by
    );
    event BountyCancelled(
        uint256 indexed repoId, uint256 indexed issueNumber, Currency currency, uint256 amount, address indexed by
    );
    event BountyCancelRequested(uint256 indexed repoId, uint256 indexed issueNumber, uint256 readyAt, address by);
    event BountyClaimed(uint256 indexed repoId, uint256 indexed issueNumber, address indexed contributor);
    event PoolWithdrawn(uint256 indexed repoId, Currency currency, uint256 amount, address indexed to, address by);
    event PoolManagerProposed(uint256 indexed repoId, address indexed manager, uint256 readyAt);
    event PoolManagerSet(uint256 indexed repoId, address indexed manager, bool enabled);
    event OutflowQueued(
        uint256 indexed id,
        uint256 indexed repoId,
        uint256 issueNumber,
        Currency currency,
        uint256 amount,
        address to,
        uint256 readyAt,
        address by
    );
    event OutflowExecuted(uint256 indexed id);
    event OutflowCancelled(
        uint256 indexed id, uint256 indexed repoId, uint256 issueNumber, Currency currency, uint256 amount, address by
    );
    event CapsChanged(Currency currency, uint256 perRepo, uint256 total);
    event OperationScheduled(bytes32 indexed id, bytes data, uint256 readyAt);
    event OperationCancelled(bytes32 indexed id);
    event ExcessSwept(Currency currency, uint256 amount, address to);
    event FeeBpsChanged(uint16 oldBps, uint16 newBps);
    event FeeCollectorChanged(address oldCollector, address newCollector);

    error NotPoolManager(uint256 repoId, address account);
    error ZeroAmount();
    error ZeroAddress();
    error InvalidRecipient(address recipient);
    error InvalidCurrency(Currency currency);
    error BountyExists(uint256 repoId, uint256 issueNumber, BountyStatus status);
    error BountyNotOpen(uint256 repoId, uint256 issueNumber, BountyStatus status);
    error BelowMinimum(Currency currency, uint256 amount, uint256 minimum);
    error InsufficientPool(uint256 repoId, Currency currency, uint256 available, uint256 requested);
    error FeeTooHigh(uint16 bps, uint16 maxBps);
    error TransferFailed(address to, uint256 amount);
    error DirectTransferRejected();
    error NotReady(uint256 readyAt);
    error NotScheduled(bytes32 id);
    error NotClaimant(uint256 repoId, uint256 issueNumber, address to);
    error UnknownOutflow(uint256 id);
    error CapOutOfBounds(Currency currency, uint256 perRepo, uint256 total);
    error DelayOutOfBounds(uint256 delay);

    modifier onlyManagerOrOperator(uint256 repoId) {
        if (!_isManager(repoId, msg.sender) && !hasRole(OPERATOR_ROLE, msg.sender)) {
            revert NotPoolManager(repoId, msg.sender);
        }
        _;
    }

    /// @param admin The admin (a multisig in production); the deployer never holds a role.
    /// @param adminTransferDelay How long a two-step admin transfer waits (AccessControlDefaultAdminRules).
    /// @param initialCaps Per currency: [per repository per day, in total per day].
    constructor(
        address admin,
        uint48 adminTransferDelay,
        address guardian,
        address operator,
        address initialFeeCollector,
        IERC20 roxnToken,
        IERC20 usdcToken,
        uint256 initialManagerDelay,
        uint256[2][3] memory initialCaps
    ) AccessControlDefaultAdminRules(adminTransferDelay, admin) {
        if (
            guardian == address(0) || operator == address(0) || address(roxnToken) == address(0)
                || address(usdcToken) == address(0)
        ) revert ZeroAddress();
        if (
            initialManagerDelay > MAX_MANAGER_DELAY
                || (initialManagerDelay < MIN_MANAGER_DELAY && block.chainid != LOCAL_CHAIN_ID)
        ) revert DelayOutOfBounds(initialManagerDelay);
        _checkRecipient(initialFeeCollector);
        _grantRole(GUARDIAN_ROLE, guardian);
        _grantRole(OPERATOR_ROLE, operator);
        roxn = roxnToken;
        usdc = usdcToken;
        managerDelay = initialManagerDelay;
        for (uint8 c = 0; c < 3; c++) {
            _setCaps(Currency(c), initialCaps[c][0], initialCaps[c][1]);
        }
        feeBps = 50;
        emit FeeBpsChanged(0, 50);
        feeCollector = initialFeeCollector;
        emit FeeCollectorChanged(address(0), initialFeeCollector);
    }

    /// @notice Only the funding functions add XDC: a plain transfer would belong to no pool.
    receive() external payable {
        revert DirectTransferRejected();
    }

    // ---- Administration (timelocked) ----

    /// @notice Schedules an admin call (its full calldata); it can run ADMIN_DELAY later, once.
    function schedule(bytes calldata data) external onlyRole(DEFAULT_ADMIN_ROLE) {
        bytes32 id = keccak256(data);
        uint256 readyAt = block.timestamp + ADMIN_DELAY;
        scheduledAt[id] = readyAt;
        emit OperationScheduled(id, data, readyAt);
    }

    /// @notice The admin or the guardian drops a scheduled admin call.
    function cancelScheduled(bytes32 id) external {
        if (!hasRole(GUARDIAN_ROLE, msg.sender)) _checkRole(DEFAULT_ADMIN_ROLE);
        if (scheduledAt[id] == 0) revert NotScheduled(id);
        delete scheduledAt[id];
        emit OperationCancelled(id);
    }

    /// @notice Granting a role needs a call scheduled ADMIN_DELAY earlier.
    function grantRole(bytes32 role, address account) public override {
        super.grantRole(role, account);
        _consumeScheduled();
    }

    function setFeeBps(uint16 newBps) external onlyRole(DEFAULT_ADMIN_ROLE) {
        _consumeScheduled();
        if (newBps > MAX_FEE_BPS) revert FeeTooHigh(newBps, MAX_FEE_BPS);
        emit FeeBpsChanged(feeBps, newBps);
        feeBps = newBps;
    }

    function setFeeCollector(address newCollector) external onlyRole(DEFAULT_ADMIN_ROLE) {
        _consumeScheduled();
        _checkRecipient(newCollector);
        emit FeeCollectorChanged(feeCollector, newCollector);
        feeCollector = newCollector;
    }

    function setCaps(Currency currency, uint256 perRepo, uint256 total) external onlyRole(DEFAULT_ADMIN_ROLE) {
        _consumeScheduled();
        _setCaps(currency, perRepo, total);
    }

    /// @notice Moves only what the contract holds above what it owes (forced-in
    ///         XDC, tokens sent to it directly); never a pool, bounty or queued outflow.
    function sweepExcess(Currency currency, address to) external onlyRole(DEFAULT_ADMIN_ROLE) nonReentrant {
        _checkRecipient(to);
        uint256 held = currency == Currency.XDC ? address(this).balance : _token(currency).balanceOf(address(this));
        uint256 owedNow = _owed[uint8(currency)];
        if (held <= owedNow) revert ZeroAmount();
        emit ExcessSwept(currency, held - owedNow, to);
        _send(currency, to, held - owedNow);
    }

    function pause() external {
        if (!hasRole(GUARDIAN_ROLE, msg.sender)) _checkRole(DEFAULT_ADMIN_ROLE);
        _pause();
    }

    function unpause() external onlyRole(DEFAULT_ADMIN_ROLE) {
        _unpause();
    }

    // ---- Pool managers ----

    /// @notice The operator (after checking GitHub admin rights) proposes; the
    ///         same call after managerDelay appoints. The admin co-signs a
    ///         proposal (appoints it at once) or, alone, goes through the timelock.
    function addPoolManager(uint256 repoId, address manager) external whenNotPaused {
        if (manager == address(0)) revert ZeroAddress();
        if (hasRole(DEFAULT_ADMIN_ROLE, msg.sender)) {
            if (_pendingManagers[repoId][manager] == 0) _consumeScheduled();
        } else {
            _checkRole(OPERATOR_ROLE);
            uint256 readyAt = _pendingManagers[repoId][manager];
            if (readyAt == 0) {
                readyAt = block.timestamp + managerDelay;
                _pendingManagers[repoId][manager] = readyAt;
                emit PoolManagerProposed(repoId, manager, readyAt);
                if (managerDelay > 0) return;
            } else if (block.timestamp < readyAt) {
                revert NotReady(readyAt);
            }
        }
        delete _pendingManagers[repoId][manager];
        if (_add(_managers[repoId], manager)) emit PoolManagerSet(repoId, manager, true);
    }

    /// @notice The operator (when GitHub says the account lost admin rights) or
    ///         the admin removes a manager or a pending appointment. Only the
    ///         admin can while paused, to clear managers a stolen key appointed.
    function removePoolManager(uint256 repoId, address manager) external {
        if (!hasRole(DEFAULT_ADMIN_ROLE, msg.sender)) {
            _checkRole(OPERATOR_ROLE);
            _requireNotPaused();
        }
        delete _pendingManagers[repoId][manager];
        if (_remove(_managers[repoId], manager)) emit PoolManagerSet(repoId, manager, false);
    }

    // ---- Pools ----

    /// @notice Anyone may add money to a pool; refused when the fee is above `maxFeeBps`.
    function fundPoolXdc(uint256 repoId, uint16 maxFeeBps) external payable nonReentrant whenNotPaused {
        uint256 fee = _credit(repoId, Currency.XDC, msg.value, maxFeeBps);
        if (fee > 0) _sendXdc(feeCollector, fee);
    }

    /// @notice Pulls `amount` of ROXN or USDC from the caller (needs an allowance of `amount`).
    function fundPoolToken(uint256 repoId, Currency currency, uint256 amount, uint16 maxFeeBps)
        external
        nonReentrant
        whenNotPaused
    {
        if (currency == Currency.XDC) revert InvalidCurrency(currency);
        uint256 fee = _credit(repoId, currency, amount, maxFeeBps);
        IERC20 token = _token(currency);
        token.safeTransferFrom(msg.sender, address(this), amount - fee);
        if (fee > 0) token.safeTransferFrom(msg.sender, feeCollector, fee);
    }

    /// @notice A pool manager takes unallocated money back out of a pool; over
    ///         a cap it is queued. The operator cannot withdraw a pool.
    function withdrawPool(uint256 repoId, Currency currency, uint256 amount, address to)
        external
        nonReentrant
        whenNotPaused
    {
        if (!_isManager(repoId, msg.sender)) revert NotPoolManager(repoId, msg.sender);
        if (amount == 0) revert ZeroAmount();
        _checkRecipient(to);
        _debitPool(repoId, currency, amount);
        if (_withinCaps(repoId, currency, amount)) {
            _owed[uint8(currency)] -= amount;
            emit PoolWithdrawn(repoId, currency, amount, to, msg.sender);
            _send(currency, to, amount);
        } else {
            _enqueue(Outflow(repoId, 0, amount, to, 0, currency, false));
        }
    }

    // ---- Bounties ----

    /// @notice Moves `amount` from the pool to the issue's bounty. Only a cancelled one can be replaced.
    function allocateBounty(uint256 repoId, uint256 issueNumber, Currency currency, uint256 amount)
        external
        whenNotPaused
        onlyManagerOrOperator(repoId)
    {
        Bounty storage bounty = _bounties[repoId][issueNumber];
        if (bounty.status != BountyStatus.None && bounty.status != BountyStatus.Cancelled) {
            revert BountyExists(repoId, issueNumber, bounty.status);
        }
        uint256 minimum = minimumBounty(currency);
        if (amount < minimum) revert BelowMinimum(currency, amount, minimum);
        _debitPool(repoId, currency, amount);
        _bounties[repoId][issueNumber] = Bounty(currency, BountyStatus.Open, 0, address(0), amount);
        emit BountyAllocated(repoId, issueNumber, currency, amount, msg.sender);
    }

    /// @notice Records that `contributor` works on the issue (the platform's
    ///         Contribute). From then on the bounty is only refunded after a delay.
    function claimBounty(uint256 repoId, uint256 issueNumber, address contributor)
        external
        whenNotPaused
        onlyRole(OPERATOR_ROLE)
    {
        _checkRecipient(contributor);
        if (_add(_claimants[repoId][issueNumber], contributor)) emit BountyClaimed(repoId, issueNumber, contributor);
    }

    /// @notice Pays an open bounty to one contributor, at most once; over a cap
    ///         it is queued. A manager may pay a claimed bounty only to a claimant.
    function payBounty(uint256 repoId, uint256 issueNumber, address contributor)
        external
        nonReentrant
        whenNotPaused
        onlyManagerOrOperator(repoId)
    {
        _checkRecipient(contributor);
        Bounty storage bounty = _openBounty(repoId, issueNumber);
        AddressSet storage claimed = _claimants[repoId][issueNumber];
        if (claimed.values.length > 0 && claimed.position[contributor] == 0 && !hasRole(OPERATOR_ROLE, msg.sender)) {
            revert NotClaimant(repoId, issueNumber, contributor);
        }
        bounty.recipient = contributor;
        bounty.cancelReadyAt = 0;
        if (_withinCaps(repoId, bounty.currency, bounty.amount)) {
            // Effects before the transfer, so a re-entering recipient finds it Paid.
            bounty.status = BountyStatus.Paid;
            _owed[uint8(bounty.currency)] -= bounty.amount;
            emit BountyPaid(repoId, issueNumber, bounty.currency, bounty.amount, contributor, msg.sender);
            _send(bounty.currency, contributor, bounty.amount);
        } else {
            bounty.status = BountyStatus.Queued;
            _enqueue(Outflow(repoId, issueNumber, bounty.amount, contributor, 0, bounty.currency, true));
        }
    }

    /// @notice Returns an open bounty to the pool. Unclaimed: at once. Claimed:
    ///         the first call requests it (visible on-chain), a call
    ///         CLAIM_CANCEL_DELAY later carries it out.
    function cancelBounty(uint256 repoId, uint256 issueNumber) external whenNotPaused onlyManagerOrOperator(repoId) {
        Bounty storage bounty = _openBounty(repoId, issueNumber);
        if (_claimants[repoId][issueNumber].values.length > 0) {
            uint256 readyAt = bounty.cancelReadyAt;
            if (readyAt == 0) {
                readyAt = block.timestamp + CLAIM_CANCEL_DELAY;
                bounty.cancelReadyAt = uint64(readyAt);
                emit BountyCancelRequested(repoId, issueNumber, readyAt, msg.sender);
                return;
            }
            if (block.timestamp < readyAt) revert NotReady(readyAt);
        }
        bounty.status = BountyStatus.Cancelled;
        bounty.cancelReadyAt = 0;
        _pools[repoId][uint8(bounty.currency)] += bounty.amount;
        emit BountyCancelled(repoId, issueNumber, bounty.currency, bounty.amount, msg.sender);
    }

    // ---- Queued outflows ----

    /// @notice Anyone runs a queued outflow once its delay has passed; it goes
    ///         where it was queued to, and no longer counts against the caps.
    function executeOutflow(uint256 id) external nonReentrant whenNotPaused {
        Outflow memory outflow = _queue[id];
        if (outflow.readyAt == 0) revert UnknownOutflow(id);
        if (block.timestamp < outflow.readyAt) revert NotReady(outflow.readyAt);
        delete _queue[id];
        _owed[uint8(outflow.currency)] -= outflow.amount;
        if (outflow.isPayout) {
            _bounties[outflow.repoId][outflow.issueNumber].status = BountyStatus.Paid;
            emit BountyPaid(
                outflow.repoId, outflow.issueNumber, outflow.currency, outflow.amount, outflow.to, msg.sender
            );
        } else {
            emit PoolWithdrawn(outflow.repoId, outflow.currency, outflow.amount, outflow.to, msg.sender);
        }
        emit OutflowExecuted(id);
        _send(outflow.currency, outflow.to, outflow.amount);
    }

    /// @notice The guardian (or admin) drops a queued outflow: a payout's bounty
    ///         is open again, a withdrawal's money back in the pool. Works while paused.
    function cancelOutflow(uint256 id) external {
        if (!hasRole(GUARDIAN_ROLE, msg.sender)) _checkRole(DEFAULT_ADMIN_ROLE);
        Outflow memory outflow = _queue[id];
        if (outflow.readyAt == 0) revert UnknownOutflow(id);
        delete _queue[id];
        if (outflow.isPayout) {
            Bounty storage bounty = _bounties[outflow.repoId][outflow.issueNumber];
            bounty.status = BountyStatus.Open;
            bounty.recipient = address(0);
        } else {
            _pools[outflow.repoId][uint8(outflow.currency)] += outflow.amount;
        }
        emit OutflowCancelled(id, outflow.repoId, outflow.issueNumber, outflow.currency, outflow.amount, msg.sender);
    }

    // ---- Views ----

    function isPoolManager(uint256 repoId, address account) external view returns (bool) {
        return _isManager(repoId, account);
    }

    function poolManagers(uint256 repoId) external view returns (address[] memory) {
        return _managers[repoId].values;
    }

    /// @return readyAt When the operator's proposal can be completed; 0: none.
    function pendingPoolManager(uint256 repoId, address manager) external view returns (uint256) {
        return _pendingManagers[repoId][manager];
    }

    function claimants(uint256 repoId, uint256 issueNumber) external view returns (address[] memory) {
        return _claimants[repoId][issueNumber].values;
    }

    function getPool(uint256 repoId) external view returns (uint256 xdcPool, uint256 roxnPool, uint256 usdcPool) {
        uint256[3] storage balances = _pools[repoId];
        return (balances[0], balances[1], balances[2]);
    }

    /// @notice A cancelled bounty keeps its last currency and amount for the record.
    function getBounty(uint256 repoId, uint256 issueNumber)
        external
        view
        returns (Currency currency, uint256 amount, BountyStatus status, address recipient)
    {
        Bounty storage bounty = _bounties[repoId][issueNumber];
        return (bounty.currency, bounty.amount, bounty.status, bounty.recipient);
    }

    /// @return readyAt When a requested cancellation of the claimed bounty can run; 0: none requested.
    function cancelReadyAt(uint256 repoId, uint256 issueNumber) external view returns (uint256) {
        return _bounties[repoId][issueNumber].cancelReadyAt;
    }

    function getOutflow(uint256 id) external view returns (Outflow memory) {
        return _queue[id];
    }

    /// @notice What the contract owes in `currency`: pools + open bounties + queued outflows.
    function owed(Currency currency) external view returns (uint256) {
        return _owed[uint8(currency)];
    }

    /// @return perRepo The per-repository cap per rolling day.
    /// @return total The cap over all repositories per rolling day.
    /// @return repoUsed What went out of `repoId` within the last CAP_WINDOW.
    /// @return totalUsed What went out in total within the last CAP_WINDOW.
    function caps(Currency currency, uint256 repoId)
        external
        view
        returns (uint256 perRepo, uint256 total, uint256 repoUsed, uint256 totalUsed)
    {
        RateLimiter.SlidingWindow storage repoCap = _repoCaps[uint8(currency)];
        RateLimiter.SlidingWindow storage totalCap = _totalCaps[uint8(currency)];
        return (repoCap._limit, totalCap._limit, repoCap.used(bytes32(repoId)), totalCap.used(0));
    }

    /// @notice The smallest bounty: 1 XDC, 0.0001 ROXN, 0.0001 USDC.
    function minimumBounty(Currency currency) public pure returns (uint256) {
        if (currency == Currency.XDC) return 1e18;
        if (currency == Currency.ROXN) return 1e14;
        return 100;
    }

    /// @notice The hard upper bound of any cap: 10M XDC, 10M ROXN, 1M USDC.
    function maxCap(Currency currency) public pure returns (uint256) {
        if (currency == Currency.XDC) return 10_000_000e18;
        if (currency == Currency.ROXN) return 10_000_000e18;
        return 1_000_000e6;
    }

    // ---- Internals ----

    function _isManager(uint256 repoId, address account) private view returns (bool) {
        return _managers[repoId].position[account] != 0;
    }

    function _add(AddressSet storage set, address value) private returns (bool) {
        if (set.position[value] != 0) return false;
        set.values.push(value);
        set.position[value] = set.values.length;
        return true;
    }

    function _remove(AddressSet storage set, address value) private returns (bool) {
        uint256 position = set.position[value];
        if (position == 0) return false;
        address last = set.values[set.values.length - 1];
        set.values[position - 1] = last;
        set.position[last] = position;
        set.values.pop();
        delete set.position[value];
        return true;
    }

    function _consumeScheduled() private {
        bytes32 id = keccak256(msg.data);
        uint256 readyAt = scheduledAt[id];
        if (readyAt == 0) revert NotScheduled(id);
        if (block.timestamp < readyAt) revert NotReady(readyAt);
        delete scheduledAt[id];
    }

    function _setCaps(Currency currency, uint256 perRepo, uint256 total) private {
        if (perRepo > total || total > maxCap(currency)) revert CapOutOfBounds(currency, perRepo, total);
        _repoCaps[uint8(currency)].updateSettings(CAP_WINDOW, uint208(perRepo));
        _totalCaps[uint8(currency)].updateSettings(CAP_WINDOW, uint208(total));
        emit CapsChanged(currency, perRepo, total);
    }

    /// @dev Records the outflow against both caps when it fits both; otherwise records nothing.
    function _withinCaps(uint256 repoId, Currency currency, uint256 amount) private returns (bool) {
        RateLimiter.SlidingWindow storage repoCap = _repoCaps[uint8(currency)];
        RateLimiter.SlidingWindow storage totalCap = _totalCaps[uint8(currency)];
        if (amount > repoCap.available(bytes32(repoId)) || amount > totalCap.available(0)) return false;
        repoCap.consume(bytes32(repoId), amount);
        totalCap.consume(0, amount);
        return true;
    }

    function _enqueue(Outflow memory outflow) private {
        uint256 id = ++nextOutflowId;
        outflow.readyAt = uint64(block.timestamp + QUEUE_DELAY);
        _queue[id] = outflow;
        emit OutflowQueued(
            id,
            outflow.repoId,
            outflow.issueNumber,
            outflow.currency,
            outflow.amount,
            outflow.to,
            outflow.readyAt,
            msg.sender
        );
    }

    /// @return fee The part of `gross` owed to the fee collector; the rest is now in the pool.
    function _credit(uint256 repoId, Currency currency, uint256 gross, uint16 maxFeeBps)
        private
        returns (uint256 fee)
    {
        if (gross == 0) revert ZeroAmount();
        if (feeBps > maxFeeBps) revert FeeTooHigh(feeBps, maxFeeBps);
        fee = gross * feeBps / BPS_DENOMINATOR;
        uint256 net = gross - fee;
        _pools[repoId][uint8(currency)] += net;
        _owed[uint8(currency)] += net;
        emit PoolFunded(repoId, currency, msg.sender, gross, fee, net);
    }

    function _debitPool(uint256 repoId, Currency currency, uint256 amount) private {
        uint256 available = _pools[repoId][uint8(currency)];
        if (amount > available) revert InsufficientPool(repoId, currency, available, amount);
        _pools[repoId][uint8(currency)] = available - amount;
    }

    function _openBounty(uint256 repoId, uint256 issueNumber) private view returns (Bounty storage bounty) {
        bounty = _bounties[repoId][issueNumber];
        if (bounty.status != BountyStatus.Open) revert BountyNotOpen(repoId, issueNumber, bounty.status);
    }

    function _send(Currency currency, address to, uint256 amount) private {
        if (currency == Currency.XDC) _sendXdc(to, amount);
        else _token(currency).safeTransfer(to, amount);
    }

    /// @dev Bounded gas and no return data copied: a hostile recipient can only fail its own transfer.
    function _sendXdc(address to, uint256 amount) private {
        bool ok;
        uint256 gasLimit = NATIVE_TRANSFER_GAS;
        assembly ("memory-safe") {
            ok := call(gasLimit, to, amount, 0, 0, 0, 0)
        }
        if (!ok) revert TransferFailed(to, amount);
    }

    function _token(Currency currency) private view returns (IERC20) {
        return currency == Currency.ROXN ? roxn : usdc;
    }

    function _checkRecipient(address to) private view {
        if (to == address(0)) revert ZeroAddress();
        if (to == address(this)) revert InvalidRecipient(to);
    }
}
