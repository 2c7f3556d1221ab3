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

/// @title RepoRewards v3's storage, types, events, errors and shared internals
/// @notice Inherited by RepoRewards (the deployed contract) and RepoRewardsExtension (the code RepoRewards
///         delegates the rest of its functions to): one storage layout, declared only here.
/// @dev Neither child may declare state variables (immutables are fine: they live in code).
abstract contract RepoRewardsBase is AccessControlDefaultAdminRules, Pausable, ReentrancyGuard {
    using SafeERC20 for IERC20;
    using RateLimiter for RateLimiter.SlidingWindow;

    enum Currency {
        XDC,
        ROXN,
        USDC
    }

    /// @dev Queued: its payout waits in the outflow queue (over a cap, too young, or to a new address).
    enum BountyStatus {
        None,
        Open,
        Paid,
        Cancelled,
        Queued
    }

    /// @dev What a queued outflow is: for a Tip, issueNumber holds the tip id and repoId is 0.
    enum OutflowKind {
        Withdrawal,
        Payout,
        SplitPayout,
        Tip
    }

    /// @dev Why a funder's share went back to them.
    enum RefundReason {
        Withdrawn,
        Expired,
        Cancelled
    }

    enum TipStatus {
        None,
        Held,
        Queued,
        Paid,
        Refunded
    }

    struct Bounty {
        Currency currency;
        BountyStatus status;
        /// Whether the requested cancellation ends the whole bounty (true) or only takes the pool's share back.
        bool cancelWhole;
        /// When a requested cancellation of a claimed bounty may run; 0: none requested.
        uint64 cancelReadyAt;
        /// Before this time the bounty is only paid through the queue (its youngest money is younger than payoutDelay).
        uint64 payableAt;
        /// Increments each time a cancelled bounty starts again; funders' shares are kept per round.
        uint32 round;
        address recipient;
        /// Pool's share + funders' shares (Open, Queued, Paid); a cancelled bounty keeps its last amount for the record.
        uint256 amount;
        /// The part allocated from the repository's pool.
        uint256 poolShare;
        /// Funders' shares not yet refunded (of this round).
        uint256 boosted;
    }

    /// @notice A bounty as `getBountyDetails` returns it.
    struct BountyDetails {
        Currency currency;
        BountyStatus status;
        uint256 amount;
        uint256 poolShare;
        uint256 boosted;
        uint256 payableAt;
        uint256 cancelReadyAt;
        bool cancelWhole;
        address recipient;
        uint256 round;
        uint256 funderCount;
    }

    struct Boost {
        uint256 amount;
        /// 0: never expires.
        uint64 expiresAt;
        /// When a requested withdrawal (of a claimed bounty's boost) may run; 0: none requested.
        uint64 withdrawReadyAt;
        /// In the round's `funders` list already (a funder refunded and boosting again is listed once).
        bool listed;
    }

    struct Tip {
        address tipper;
        uint64 createdAt;
        Currency currency;
        TipStatus status;
        address recipient;
        uint256 githubUserId;
        uint256 amount;
    }

    /// @dev A bounty share held in escrow (as a Tip whose tipper is address(0)) for a GitHub user without a
    ///      wallet: paid by the operator to the address the user registers (payTip), never before the
    ///      bounty's money was payable (payableAt), counted against the repository's cap.
    struct HeldShare {
        uint256 repoId;
        uint256 issueNumber;
        uint64 payableAt;
    }

    /// @dev A payout, split payout, escrowed tip payout or withdrawal waiting in the queue.
    ///      issueNumber is 0 for a withdrawal and the tip id for a tip (repoId 0).
    struct Outflow {
        uint256 repoId;
        uint256 issueNumber;
        uint256 amount;
        address to;
        uint64 readyAt;
        Currency currency;
        OutflowKind kind;
    }

    /// @dev OpenZeppelin's EnumerableSet needs Cancun (mcopy); XDC runs paris.
    struct AddressSet {
        address[] values;
        mapping(address => uint256) position;
    }

    /// @notice The platform: appoints pool managers (after managerDelay),
    ///         records claims, allocates, pays and cancels like a manager, pays escrowed tips.
    bytes32 public constant OPERATOR_ROLE = keccak256("OPERATOR_ROLE");
    /// @notice Pauses at once and cancels queued outflows or scheduled admin
    ///         operations; moves nothing.
    bytes32 public constant GUARDIAN_ROLE = keccak256("GUARDIAN_ROLE");

    uint16 public constant MAX_FEE_BPS = 500;
    uint16 internal constant BPS_DENOMINATOR = 10_000;
    /// @notice Role grants, fee, fee collector, cap, payout delay and threshold changes wait this long.
    uint256 public constant ADMIN_DELAY = 2 days;
    /// @notice A queued outflow over a cap runs no earlier than this after it was queued.
    uint256 public constant QUEUE_DELAY = 2 days;
    /// @notice A claimed bounty's refund to the pool, or a funder's withdrawal from it, runs this long after it was requested.
    uint256 public constant CLAIM_CANCEL_DELAY = 3 days;
    /// @notice An escrowed tip goes back to its tipper (on their request) no earlier than this after it was made.
    uint256 public constant TIP_REFUND_DELAY = 30 days;
    /// @notice The most recipients of one split payout.
    uint256 public constant MAX_SPLIT_RECIPIENTS = 20;
    /// @notice The largest payoutDelay.
    uint256 public constant MAX_PAYOUT_DELAY = 7 days;
    /// @notice The smallest managerDelay on any chain but the local development chain.
    uint256 public constant MIN_MANAGER_DELAY = 1 days;
    uint256 public constant MAX_MANAGER_DELAY = 30 days;
    uint48 public constant CAP_WINDOW = 1 days;
    /// @notice Gas forwarded with a native transfer: enough for a smart wallet, not for a griefer.
    uint256 public constant NATIVE_TRANSFER_GAS = 50_000;
    uint256 internal constant LOCAL_CHAIN_ID = 31337;

    IERC20 public immutable roxn;
    IERC20 public immutable usdc;
    /// @notice How long an operator's appointment of a pool manager waits.
    uint256 public immutable managerDelay;

    uint16 public feeBps;
    address public feeCollector;
    /// @notice The minimum age of money before it is paid out at once, and how long a payout above
    ///         `newRecipientThreshold` to an address never paid before waits. 0 disables both.
    uint64 public payoutDelay;
    /// @notice True until the admin's `finishImport`: the migration from v2 may still add pools and bounties.
    bool public importOpen = true;

    mapping(uint256 repoId => uint256[3] balances) internal _pools;
    mapping(uint256 repoId => mapping(uint256 issueNumber => Bounty)) internal _bounties;
    mapping(uint256 repoId => mapping(uint256 issueNumber => mapping(uint256 round => mapping(address funder => Boost))))
        internal _boosts;
    mapping(uint256 repoId => mapping(uint256 issueNumber => mapping(uint256 round => address[]))) internal _funders;
    mapping(uint256 repoId => AddressSet) internal _managers;
    mapping(uint256 repoId => mapping(address manager => uint256 readyAt)) internal _pendingManagers;
    mapping(uint256 repoId => mapping(uint256 issueNumber => AddressSet)) internal _claimants;
    /// @dev What the contract owes per currency: pools + open bounties + funders' shares to refund + escrowed tips + queued outflows.
    uint256[3] internal _owed;
    /// @dev Payouts above it to an address never paid before wait payoutDelay; per currency.
    uint256[3] internal _newRecipientThresholds;
    mapping(address => bool) internal _paidBefore;
    /// @dev Outflow caps per currency: per repository (key = repoId) and in total (key 0).
    RateLimiter.SlidingWindow[3] internal _repoCaps;
    RateLimiter.SlidingWindow[3] internal _totalCaps;
    mapping(uint256 id => Outflow) internal _queue;
    mapping(uint256 id => address[]) internal _splitRecipients;
    mapping(uint256 id => uint256[]) internal _splitAmounts;
    uint256 public nextOutflowId;
    mapping(uint256 id => Tip) internal _tips;
    uint256 public nextTipId;
    /// @notice Admin operations scheduled by the hash of their calldata.
    mapping(bytes32 id => uint256 readyAt) public scheduledAt;
    /// @dev A queued split payout's held parts: GitHub user ids without a wallet and their amounts.
    mapping(uint256 id => uint256[]) internal _splitHeldUsers;
    mapping(uint256 id => uint256[]) internal _splitHeldAmounts;
    /// @dev The bounty a held share (a Tip without a tipper) came from.
    mapping(uint256 tipId => HeldShare) internal _heldShares;

    // ---- Events (v2) ----

    event PoolFunded(
        uint256 indexed repoId, Currency currency, address indexed funder, uint256 gross, uint256 fee, uint256 net
    );
    /// @notice The pool's share was put on the issue (amount: the pool's share).
    event BountyAllocated(
        uint256 indexed repoId, uint256 indexed issueNumber, Currency currency, uint256 amount, address indexed by
    );
    /// @notice The bounty was paid: amount is the whole bounty; contributor the sole or first recipient
    ///         (a split payout also emits BountySharePaid for each recipient, before this).
    event BountyPaid(
        uint256 indexed repoId,
        uint256 indexed issueNumber,
        Currency currency,
        uint256 amount,
        address indexed contributor,
        address by
    );
    /// @notice The whole bounty ended: its pool's share is back in the pool; funders' shares are
    ///         refundable (BoostRefunded). amount: the bounty's amount when cancelled.
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

    // ---- Events (v3) ----

    /// @notice A funder added `net` to the issue's bounty (the first boost of an issue without a bounty creates it).
    event BountyBoosted(
        uint256 indexed repoId,
        uint256 indexed issueNumber,
        Currency currency,
        address indexed funder,
        uint256 gross,
        uint256 fee,
        uint256 net,
        uint256 expiresAt
    );
    /// @notice A funder's whole share went back to them.
    event BoostRefunded(
        uint256 indexed repoId,
        uint256 indexed issueNumber,
        Currency currency,
        address indexed funder,
        uint256 amount,
        RefundReason reason,
        address by
    );
    /// @notice A funder asked to withdraw their share of a claimed bounty; it runs at readyAt.
    event BoostWithdrawRequested(
        uint256 indexed repoId, uint256 indexed issueNumber, address indexed funder, uint256 readyAt
    );
    /// @notice The pool's share went back to the pool; the bounty stays open with its funders' shares.
    event PoolShareCancelled(
        uint256 indexed repoId, uint256 indexed issueNumber, Currency currency, uint256 amount, address indexed by
    );
    /// @notice One recipient's share of a split payout (followed by BountyPaid with the total).
    event BountySharePaid(
        uint256 indexed repoId, uint256 indexed issueNumber, Currency currency, uint256 amount, address indexed recipient
    );
    /// @notice One share of a split payout held in escrow for a GitHub user without a wallet, under `tipId`
    ///         (paid with TipPaid when they register; followed, like BountySharePaid, by BountyPaid with the total).
    event BountyShareHeld(
        uint256 indexed repoId,
        uint256 indexed issueNumber,
        Currency currency,
        uint256 amount,
        uint256 indexed githubUserId,
        uint256 tipId
    );
    /// @notice A held bounty share nobody claimed went back to its repository's pool (TIP_REFUND_DELAY after it was held).
    event HeldShareReturned(
        uint256 indexed tipId, uint256 indexed repoId, uint256 issueNumber, Currency currency, uint256 amount, address by
    );
    event Tipped(
        address indexed tipper, address indexed recipient, Currency currency, uint256 gross, uint256 fee, uint256 net
    );
    /// @notice A tip held for a GitHub user without a wallet yet.
    event TipEscrowed(
        uint256 indexed tipId,
        address indexed tipper,
        uint256 indexed githubUserId,
        Currency currency,
        uint256 gross,
        uint256 fee,
        uint256 net
    );
    event TipPaid(uint256 indexed tipId, address indexed recipient, Currency currency, uint256 amount, address by);
    event TipRefunded(uint256 indexed tipId, address indexed tipper, Currency currency, uint256 amount, address by);
    event PayoutDelayChanged(uint64 oldDelay, uint64 newDelay);
    event NewRecipientThresholdChanged(Currency currency, uint256 threshold);
    /// @notice The migration from v2 brought a pool's money (no fee).
    event PoolImported(uint256 indexed repoId, Currency currency, uint256 amount);
    event ImportFinished();

    // ---- Errors ----

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
    error CurrencyMismatch(Currency bountyCurrency, Currency given);
    error ExpiryInvalid(uint256 current, uint256 requested);
    error NoShare(uint256 repoId, uint256 issueNumber, address funder);
    error NotRefundable(uint256 repoId, uint256 issueNumber, address funder);
    error BoostsOutstanding(uint256 repoId, uint256 issueNumber, uint256 boosted);
    error SplitInvalid(uint256 total, uint256 sum);
    error DuplicateRecipient(address recipient);
    error DuplicateHeldUser(uint256 githubUserId);
    error UnknownTip(uint256 tipId, TipStatus status);
    error NotTipper(uint256 tipId, address account);
    error ImportClosed();

    modifier onlyManagerOrOperator(uint256 repoId) {
        if (!_isManager(repoId, msg.sender) && !hasRole(OPERATOR_ROLE, msg.sender)) {
            revert NotPoolManager(repoId, msg.sender);
        }
        _;
    }

    /// @notice The smallest bounty, boost and escrowed tip: 1 XDC, 0.0001 ROXN, 0.0001 USDC.
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

    constructor(uint48 adminTransferDelay, address admin, IERC20 roxnToken, IERC20 usdcToken, uint256 initialManagerDelay)
        AccessControlDefaultAdminRules(adminTransferDelay, admin)
    {
        if (address(roxnToken) == address(0) || address(usdcToken) == address(0)) revert ZeroAddress();
        roxn = roxnToken;
        usdc = usdcToken;
        managerDelay = initialManagerDelay;
    }

    // ---- Internals shared by RepoRewards and RepoRewardsExtension ----

    function _isManager(uint256 repoId, address account) internal view returns (bool) {
        return _managers[repoId].position[account] != 0;
    }

    function _add(AddressSet storage set, address value) internal returns (bool) {
        if (set.position[value] != 0) return false;
        set.values.push(value);
        set.position[value] = set.values.length;
        return true;
    }

    function _consumeScheduled() internal {
        bytes32 id = keccak256(msg.data);
        uint256 readyAt = scheduledAt[id];
        if (readyAt == 0) revert NotScheduled(id);
        if (block.timestamp < readyAt) revert NotReady(readyAt);
        delete scheduledAt[id];
    }

    /// @dev Records the outflow against both caps when it fits both; otherwise records nothing.
    ///      repoId 0 (a tip) counts against the total cap and the "repository 0" key.
    function _withinCaps(uint256 repoId, Currency currency, uint256 amount) internal returns (bool) {
        RateLimiter.SlidingWindow storage repoCap = _repoCaps[uint8(currency)];
        RateLimiter.SlidingWindow storage totalCap = _totalCaps[uint8(currency)];
        if (amount > repoCap.available(bytes32(repoId)) || amount > totalCap.available(0)) return false;
        repoCap.consume(bytes32(repoId), amount);
        totalCap.consume(0, amount);
        return true;
    }

    /// @return readyAt 0 when the payout may go at once; else when it may run from the queue: the money's
    ///         maturity, and now + payoutDelay for an address never paid before receiving above the threshold.
    function _waitUntil(uint256 maturity, uint256 readyAt, Currency currency, address to, uint256 amount)
        internal
        view
        returns (uint256)
    {
        if (maturity > block.timestamp && maturity > readyAt) readyAt = maturity;
        if (payoutDelay > 0 && !_paidBefore[to] && amount > _newRecipientThresholds[uint8(currency)]) {
            uint256 fresh = block.timestamp + payoutDelay;
            if (fresh > readyAt) readyAt = fresh;
        }
        return readyAt;
    }

    /// @dev When a payout that cannot go at once runs: over a cap, no earlier than QUEUE_DELAY from now (a
    ///      young or new-address payout that fits the caps counted against them when queued).
    function _queuedUntil(bool withinCaps, uint256 readyAt) internal view returns (uint256) {
        if (!withinCaps && block.timestamp + QUEUE_DELAY > readyAt) return block.timestamp + QUEUE_DELAY;
        return readyAt;
    }

    /// @dev Queues `outflow`; it runs at `readyAt`, or QUEUE_DELAY from now when readyAt is 0 (over a cap).
    function _enqueue(Outflow memory outflow, uint256 readyAt) internal returns (uint256 id) {
        id = ++nextOutflowId;
        outflow.readyAt = uint64(readyAt == 0 ? block.timestamp + QUEUE_DELAY : readyAt);
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

    /// @dev A fresh bounty (round) on an issue without one, or after a cancellation whose funders are all refunded.
    function _startRound(uint256 repoId, uint256 issueNumber, Bounty storage bounty, Currency currency) internal {
        BountyStatus status = bounty.status;
        if (status != BountyStatus.None && status != BountyStatus.Cancelled) {
            revert BountyExists(repoId, issueNumber, status);
        }
        if (bounty.boosted != 0) revert BoostsOutstanding(repoId, issueNumber, bounty.boosted);
        uint32 round = status == BountyStatus.None ? 0 : bounty.round + 1;
        _bounties[repoId][issueNumber] = Bounty(currency, BountyStatus.Open, false, 0, 0, round, address(0), 0, 0, 0);
    }

    /// @dev New money in the bounty: it pays at once only after payoutDelay.
    function _touch(Bounty storage bounty) internal {
        bounty.payableAt = uint64(block.timestamp + payoutDelay);
    }

    /// @dev Pulls `gross` of a token from the caller: the net into escrow, the fee to the collector.
    function _pullToken(Currency currency, uint256 gross, uint256 fee) internal {
        IERC20 token = _token(currency);
        token.safeTransferFrom(msg.sender, address(this), gross - fee);
        if (fee > 0) token.safeTransferFrom(msg.sender, feeCollector, fee);
    }

    function _openBounty(uint256 repoId, uint256 issueNumber) internal view returns (Bounty storage bounty) {
        bounty = _bounties[repoId][issueNumber];
        if (bounty.status != BountyStatus.Open) revert BountyNotOpen(repoId, issueNumber, bounty.status);
    }

    function _send(Currency currency, address to, uint256 amount) internal {
        if (currency == Currency.XDC) _sendXdc(to, amount);
        else _token(currency).safeTransfer(to, amount);
    }

    /// @dev Bounded gas and no return data copied: a hostile recipient can only fail its own transfer.
    function _sendXdc(address to, uint256 amount) internal {
        bool ok;
        uint256 gasLimit = NATIVE_TRANSFER_GAS;
        assembly ("memory-safe") {
            ok := call(gasLimit, to, amount, 0, 0, 0, 0)
        }
        if (!ok) revert TransferFailed(to, amount);
    }

    function _token(Currency currency) internal view returns (IERC20) {
        return currency == Currency.ROXN ? roxn : usdc;
    }

    /// @dev Emits a payout's events and sends each share; the bounty is already Paid and its whole amount off
    ///      `_owed`. Held parts become held tips (owed again until paid or returned), maturing when the
    ///      bounty's money did (its payableAt).
    function _sendShares(
        uint256 repoId,
        uint256 issueNumber,
        Bounty storage bounty,
        address[] memory recipients,
        uint256[] memory amounts,
        uint256[] memory heldUsers,
        uint256[] memory heldAmounts,
        OutflowKind kind
    ) internal {
        Currency currency = bounty.currency;
        uint256 total;
        for (uint256 i = 0; i < recipients.length; i++) {
            total += amounts[i];
            _paidBefore[recipients[i]] = true;
            if (kind == OutflowKind.SplitPayout) {
                emit BountySharePaid(repoId, issueNumber, currency, amounts[i], recipients[i]);
            }
        }
        for (uint256 i = 0; i < heldUsers.length; i++) {
            uint256 amount = heldAmounts[i];
            uint256 tipId = ++nextTipId;
            _tips[tipId] = Tip(address(0), uint64(block.timestamp), currency, TipStatus.Held, address(0), heldUsers[i], amount);
            _heldShares[tipId] = HeldShare(repoId, issueNumber, bounty.payableAt);
            _owed[uint8(currency)] += amount;
            total += amount;
            emit BountyShareHeld(repoId, issueNumber, currency, amount, heldUsers[i], tipId);
        }
        emit BountyPaid(repoId, issueNumber, currency, total, recipients[0], msg.sender);
        for (uint256 i = 0; i < recipients.length; i++) {
            _send(currency, recipients[i], amounts[i]);
        }
    }

    function _checkRecipient(address to) internal view {
        if (to == address(0)) revert ZeroAddress();
        if (to == address(this)) revert InvalidRecipient(to);
    }
}
