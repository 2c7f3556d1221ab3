// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {AccessControl} from "@openzeppelin/contracts/access/AccessControl.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {Pausable} from "@openzeppelin/contracts/utils/Pausable.sol";
import {ReentrancyGuard} from "@openzeppelin/contracts/utils/ReentrancyGuard.sol";

/// @title Reward pools per GitHub repository and fixed bounties per issue
/// @notice Pool managers fund a pool per repository (XDC, ROXN or USDC), put a
///         bounty on an issue from that pool, and pay it to one contributor.
///         The contract holds exactly the sum of all pools plus all open
///         bounties; every unit is either in a pool, in an open bounty, or gone
///         (paid, withdrawn, or the fee).
/// @dev See docs/contracts.md for the design and the invariants the tests check.
contract RepoRewards is AccessControl, Pausable, ReentrancyGuard {
    using SafeERC20 for IERC20;

    enum Currency {
        XDC,
        ROXN,
        USDC
    }

    enum BountyStatus {
        None,
        Open,
        Paid,
        Cancelled
    }

    struct Bounty {
        Currency currency;
        BountyStatus status;
        address recipient;
        uint256 amount;
    }

    /// @notice The platform: names pool managers after checking GitHub admin
    ///         rights, and allocates, pays and cancels like a manager.
    bytes32 public constant OPERATOR_ROLE = keccak256("OPERATOR_ROLE");

    uint16 public constant MAX_FEE_BPS = 500;
    uint16 private constant BPS_DENOMINATOR = 10_000;

    IERC20 public immutable roxn;
    IERC20 public immutable usdc;

    /// @notice Share of every funding that goes to the fee collector, in basis points.
    uint16 public feeBps;
    address public feeCollector;

    /// @dev Unallocated balance per repository, indexed by Currency.
    mapping(uint256 repoId => uint256[3] balances) private _pools;
    mapping(uint256 repoId => mapping(uint256 issueNumber => Bounty)) private _bounties;
    mapping(uint256 repoId => mapping(address account => bool)) private _poolManagers;

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
    event PoolWithdrawn(uint256 indexed repoId, Currency currency, uint256 amount, address indexed to, address by);
    event PoolManagerSet(uint256 indexed repoId, address indexed manager, bool enabled);
    event FeeBpsChanged(uint16 oldBps, uint16 newBps);
    event FeeCollectorChanged(address oldCollector, address newCollector);

    error NotPoolManager(uint256 repoId, address account);
    error ZeroAmount();
    error ZeroAddress();
    /// @dev Sending to this contract itself would strand the money outside every pool.
    error InvalidRecipient(address recipient);
    error InvalidCurrency(Currency currency);
    error BountyExists(uint256 repoId, uint256 issueNumber, BountyStatus status);
    error BountyNotOpen(uint256 repoId, uint256 issueNumber, BountyStatus status);
    error BelowMinimum(Currency currency, uint256 amount, uint256 minimum);
    error InsufficientPool(uint256 repoId, Currency currency, uint256 available, uint256 requested);
    error FeeTooHigh(uint16 bps, uint16 maxBps);
    error TransferFailed(address to, uint256 amount);
    error DirectTransferRejected();

    modifier onlyManagerOrOperator(uint256 repoId) {
        if (!_poolManagers[repoId][msg.sender] && !hasRole(OPERATOR_ROLE, msg.sender)) {
            revert NotPoolManager(repoId, msg.sender);
        }
        _;
    }

    constructor(address admin, address operator, address initialFeeCollector, IERC20 roxnToken, IERC20 usdcToken) {
        if (
            admin == address(0) || operator == address(0) || address(roxnToken) == address(0)
                || address(usdcToken) == address(0)
        ) revert ZeroAddress();
        _checkRecipient(initialFeeCollector);
        _grantRole(DEFAULT_ADMIN_ROLE, admin);
        _grantRole(OPERATOR_ROLE, operator);
        roxn = roxnToken;
        usdc = usdcToken;
        // Emitted so an indexer learns the starting fee settings from events alone.
        feeBps = 50;
        emit FeeBpsChanged(0, 50);
        feeCollector = initialFeeCollector;
        emit FeeCollectorChanged(address(0), initialFeeCollector);
    }

    /// @notice Only fundPoolXdc adds XDC: a plain transfer would belong to no pool.
    receive() external payable {
        revert DirectTransferRejected();
    }

    // ---- Administration ----

    function setFeeBps(uint16 newBps) external onlyRole(DEFAULT_ADMIN_ROLE) {
        if (newBps > MAX_FEE_BPS) revert FeeTooHigh(newBps, MAX_FEE_BPS);
        emit FeeBpsChanged(feeBps, newBps);
        feeBps = newBps;
    }

    function setFeeCollector(address newCollector) external onlyRole(DEFAULT_ADMIN_ROLE) {
        _checkRecipient(newCollector);
        emit FeeCollectorChanged(feeCollector, newCollector);
        feeCollector = newCollector;
    }

    function pause() external onlyRole(DEFAULT_ADMIN_ROLE) {
        _pause();
    }

    function unpause() external onlyRole(DEFAULT_ADMIN_ROLE) {
        _unpause();
    }

    /// @notice Called by the platform once it has verified the account's GitHub admin rights.
    function setPoolManager(uint256 repoId, address manager, bool enabled) external onlyRole(OPERATOR_ROLE) {
        if (manager == address(0)) revert ZeroAddress();
        _poolManagers[repoId][manager] = enabled;
        emit PoolManagerSet(repoId, manager, enabled);
    }

    // ---- Pools ----

    function fundPoolXdc(uint256 repoId) external payable nonReentrant whenNotPaused onlyManagerOrOperator(repoId) {
        uint256 fee = _credit(repoId, Currency.XDC, msg.value);
        if (fee > 0) _sendXdc(feeCollector, fee);
    }

    /// @notice Pulls `amount` of ROXN or USDC from the caller (needs an allowance of `amount`).
    function fundPoolToken(uint256 repoId, Currency currency, uint256 amount)
        external
        nonReentrant
        whenNotPaused
        onlyManagerOrOperator(repoId)
    {
        if (currency == Currency.XDC) revert InvalidCurrency(currency);
        uint256 fee = _credit(repoId, currency, amount);
        IERC20 token = _token(currency);
        token.safeTransferFrom(msg.sender, address(this), amount - fee);
        if (fee > 0) token.safeTransferFrom(msg.sender, feeCollector, fee);
    }

    /// @notice Takes unallocated money back out of a pool. Only a pool manager,
    ///         never the operator alone: the platform pays bounties, it does not
    ///         move pools to arbitrary addresses.
    function withdrawPool(uint256 repoId, Currency currency, uint256 amount, address to)
        external
        nonReentrant
        whenNotPaused
    {
        if (!_poolManagers[repoId][msg.sender]) revert NotPoolManager(repoId, msg.sender);
        if (amount == 0) revert ZeroAmount();
        _checkRecipient(to);
        _debitPool(repoId, currency, amount);
        emit PoolWithdrawn(repoId, currency, amount, to, msg.sender);
        _send(currency, to, amount);
    }

    // ---- Bounties ----

    /// @notice Moves `amount` from the pool to the issue's bounty. A bounty is
    ///         final once set: only a cancelled one can be replaced.
    function allocateBounty(uint256 repoId, uint256 issueNumber, Currency currency, uint256 amount)
        external
        whenNotPaused
        onlyManagerOrOperator(repoId)
    {
        Bounty storage bounty = _bounties[repoId][issueNumber];
        if (bounty.status == BountyStatus.Open || bounty.status == BountyStatus.Paid) {
            revert BountyExists(repoId, issueNumber, bounty.status);
        }
        uint256 minimum = minimumBounty(currency);
        if (amount < minimum) revert BelowMinimum(currency, amount, minimum);
        _debitPool(repoId, currency, amount);
        _bounties[repoId][issueNumber] =
            Bounty({currency: currency, status: BountyStatus.Open, recipient: address(0), amount: amount});
        emit BountyAllocated(repoId, issueNumber, currency, amount, msg.sender);
    }

    /// @notice Pays an open bounty to one contributor, at most once.
    function payBounty(uint256 repoId, uint256 issueNumber, address contributor)
        external
        nonReentrant
        whenNotPaused
        onlyManagerOrOperator(repoId)
    {
        _checkRecipient(contributor);
        Bounty storage bounty = _openBounty(repoId, issueNumber);
        // Effects before the transfer, so a re-entering recipient finds it Paid.
        bounty.status = BountyStatus.Paid;
        bounty.recipient = contributor;
        emit BountyPaid(repoId, issueNumber, bounty.currency, bounty.amount, contributor, msg.sender);
        _send(bounty.currency, contributor, bounty.amount);
    }

    /// @notice Returns an open bounty to the pool (nobody will be paid from it,
    ///         e.g. the issue closed without a fix), so money is never stuck in it.
    function cancelBounty(uint256 repoId, uint256 issueNumber) external whenNotPaused onlyManagerOrOperator(repoId) {
        Bounty storage bounty = _openBounty(repoId, issueNumber);
        bounty.status = BountyStatus.Cancelled;
        _pools[repoId][uint8(bounty.currency)] += bounty.amount;
        emit BountyCancelled(repoId, issueNumber, bounty.currency, bounty.amount, msg.sender);
    }

    // ---- Views ----

    function isPoolManager(uint256 repoId, address account) external view returns (bool) {
        return _poolManagers[repoId][account];
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

    /// @notice The smallest bounty: 1 XDC, 0.0001 ROXN, 0.0001 USDC.
    function minimumBounty(Currency currency) public pure returns (uint256) {
        if (currency == Currency.XDC) return 1e18;
        if (currency == Currency.ROXN) return 1e14;
        return 100;
    }

    // ---- Internals ----

    /// @return fee The part of `gross` owed to the fee collector; the rest is now in the pool.
    function _credit(uint256 repoId, Currency currency, uint256 gross) private returns (uint256 fee) {
        if (gross == 0) revert ZeroAmount();
        fee = gross * feeBps / BPS_DENOMINATOR;
        uint256 net = gross - fee;
        _pools[repoId][uint8(currency)] += net;
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

    function _sendXdc(address to, uint256 amount) private {
        (bool ok,) = to.call{value: amount}("");
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
