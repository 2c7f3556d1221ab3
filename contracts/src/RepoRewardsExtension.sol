// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {RateLimiter} from "@openzeppelin/contracts/utils/RateLimiter.sol";
import {RepoRewardsBase} from "./RepoRewardsBase.sol";

/// @title RepoRewards v3's boosts, tips, v2 import and v3 views
/// @notice Only runs inside RepoRewards (its fallback delegates here): called directly, every state-changing
///         function reverts, so no money can be sent to this address by mistake through them.
/// @dev Same storage layout as RepoRewards (both inherit RepoRewardsBase, which alone declares state).
contract RepoRewardsExtension is RepoRewardsBase {
    using SafeERC20 for IERC20;
    using RateLimiter for RateLimiter.SlidingWindow;

    address private immutable _self = address(this);

    error NotDelegated();

    modifier onlyDelegated() {
        if (address(this) == _self) revert NotDelegated();
        _;
    }

    /// @param roxnToken The same ROXN as the RepoRewards that will delegate here (it checks).
    /// @param usdcToken The same USDC.
    constructor(IERC20 roxnToken, IERC20 usdcToken) RepoRewardsBase(0, msg.sender, roxnToken, usdcToken, 0) {}

    /// @notice Admin, until `finishImport`: brings a v2 pool's money (XDC as value, tokens pulled from the
    ///         admin; 0 to bring only managers) without a fee, and its pool managers at once (appointed on v2).
    function importPool(uint256 repoId, Currency currency, uint256 amount, address[] calldata managers)
        external
        payable
        onlyDelegated nonReentrant
        onlyRole(DEFAULT_ADMIN_ROLE)
    {
        _pullImport(currency, amount);
        _pools[repoId][uint8(currency)] += amount;
        _owed[uint8(currency)] += amount;
        emit PoolImported(repoId, currency, amount);
        for (uint256 i = 0; i < managers.length; i++) {
            if (managers[i] == address(0)) revert ZeroAddress();
            if (_add(_managers[repoId], managers[i])) emit PoolManagerSet(repoId, managers[i], true);
        }
    }

    /// @notice Admin, until `finishImport`: recreates a v2 open bounty as the pool's share of an Open bounty,
    ///         payable at once (its money is old), with its claimants. The money comes with the call.
    function importBounty(
        uint256 repoId,
        uint256 issueNumber,
        Currency currency,
        uint256 amount,
        address[] calldata claimantList
    ) external payable onlyDelegated nonReentrant onlyRole(DEFAULT_ADMIN_ROLE) {
        Bounty storage bounty = _bounties[repoId][issueNumber];
        if (bounty.status != BountyStatus.None) revert BountyExists(repoId, issueNumber, bounty.status);
        if (amount == 0) revert ZeroAmount();
        _pullImport(currency, amount);
        _bounties[repoId][issueNumber] = Bounty(currency, BountyStatus.Open, false, 0, 0, 0, address(0), amount, amount, 0);
        _owed[uint8(currency)] += amount;
        emit BountyAllocated(repoId, issueNumber, currency, amount, msg.sender);
        for (uint256 i = 0; i < claimantList.length; i++) {
            _checkRecipient(claimantList[i]);
            if (_add(_claimants[repoId][issueNumber], claimantList[i])) {
                emit BountyClaimed(repoId, issueNumber, claimantList[i]);
            }
        }
    }

    /// @notice Admin: closes the import for good.
    function finishImport() external onlyDelegated onlyRole(DEFAULT_ADMIN_ROLE) {
        if (!importOpen) revert ImportClosed();
        importOpen = false;
        emit ImportFinished();
    }

    /// @notice Anyone adds XDC to the issue's open bounty, or creates a community bounty in XDC when the
    ///         issue has none (any repoId: a registered pool is not needed). At least 1 XDC gross; the fee
    ///         as on funding. `expiresAt`: 0 for never, else a future time after which the share is
    ///         refundable while the bounty is unpaid; a later boost by the same funder keeps or extends it.
    function boostXdc(uint256 repoId, uint256 issueNumber, uint64 expiresAt, uint16 maxFeeBps)
        external
        payable
        onlyDelegated nonReentrant
        whenNotPaused
    {
        uint256 fee = _boost(repoId, issueNumber, Currency.XDC, msg.value, expiresAt, maxFeeBps);
        if (fee > 0) _sendXdc(feeCollector, fee);
    }

    /// @notice As boostXdc, in ROXN or USDC pulled from the caller (needs an allowance of `amount`).
    function boostToken(
        uint256 repoId,
        uint256 issueNumber,
        Currency currency,
        uint256 amount,
        uint64 expiresAt,
        uint16 maxFeeBps
    ) external onlyDelegated nonReentrant whenNotPaused {
        if (currency == Currency.XDC) revert InvalidCurrency(currency);
        uint256 fee = _boost(repoId, issueNumber, currency, amount, expiresAt, maxFeeBps);
        _pullToken(currency, amount, fee);
    }

    /// @notice A funder takes their own share of an open bounty back. Nobody claimed: at once. Claimed:
    ///         the first call requests it (BoostWithdrawRequested), a call CLAIM_CANCEL_DELAY later refunds.
    function withdrawBoost(uint256 repoId, uint256 issueNumber) external onlyDelegated nonReentrant whenNotPaused {
        Bounty storage bounty = _openBounty(repoId, issueNumber);
        Boost storage share = _boosts[repoId][issueNumber][bounty.round][msg.sender];
        if (share.amount == 0) revert NoShare(repoId, issueNumber, msg.sender);
        if (_claimants[repoId][issueNumber].values.length > 0) {
            uint256 readyAt = share.withdrawReadyAt;
            if (readyAt == 0) {
                readyAt = block.timestamp + CLAIM_CANCEL_DELAY;
                share.withdrawReadyAt = uint64(readyAt);
                emit BoostWithdrawRequested(repoId, issueNumber, msg.sender, readyAt);
                return;
            }
            if (block.timestamp < readyAt) revert NotReady(readyAt);
        }
        _refund(repoId, issueNumber, bounty, share, msg.sender, RefundReason.Withdrawn);
    }

    /// @notice Anyone (the platform's hourly pass) returns `funder`'s whole share to `funder`: when the
    ///         bounty was cancelled, or when the share expired and the bounty is open (not paid or queued).
    function refundBoost(uint256 repoId, uint256 issueNumber, address funder) external onlyDelegated nonReentrant whenNotPaused {
        _refundBoost(repoId, issueNumber, funder);
    }

    /// @notice refundBoost for several funders of one bounty in one transaction.
    function refundBoosts(uint256 repoId, uint256 issueNumber, address[] calldata funderList)
        external
        onlyDelegated nonReentrant
        whenNotPaused
    {
        for (uint256 i = 0; i < funderList.length; i++) {
            _refundBoost(repoId, issueNumber, funderList[i]);
        }
    }

    /// @notice A wallet tips `recipient` in XDC at once; the fee as on funding. Nothing stays in escrow.
    function tipXdc(address recipient, uint16 maxFeeBps) external payable onlyDelegated nonReentrant whenNotPaused {
        (uint256 fee, uint256 net) = _tipAmounts(recipient, msg.value, maxFeeBps);
        emit Tipped(msg.sender, recipient, Currency.XDC, msg.value, fee, net);
        if (fee > 0) _sendXdc(feeCollector, fee);
        _sendXdc(recipient, net);
    }

    /// @notice As tipXdc, in ROXN or USDC pulled from the caller straight to the recipient and the fee collector.
    function tipToken(address recipient, Currency currency, uint256 amount, uint16 maxFeeBps)
        external
        onlyDelegated nonReentrant
        whenNotPaused
    {
        if (currency == Currency.XDC) revert InvalidCurrency(currency);
        (uint256 fee, uint256 net) = _tipAmounts(recipient, amount, maxFeeBps);
        emit Tipped(msg.sender, recipient, currency, amount, fee, net);
        IERC20 token = _token(currency);
        token.safeTransferFrom(msg.sender, recipient, net);
        if (fee > 0) token.safeTransferFrom(msg.sender, feeCollector, fee);
    }

    /// @notice A wallet tips a GitHub user who has no wallet yet: held in escrow under a new tip id, paid by
    ///         the operator to the address that user registers (payTip), or refunded to the tipper after
    ///         TIP_REFUND_DELAY (refundTip). At least the minimum bounty; the fee as on funding.
    function escrowTipXdc(uint256 githubUserId, uint16 maxFeeBps)
        external
        payable
        onlyDelegated nonReentrant
        whenNotPaused
        returns (uint256 tipId)
    {
        uint256 fee;
        (tipId, fee) = _escrowTip(githubUserId, Currency.XDC, msg.value, maxFeeBps);
        if (fee > 0) _sendXdc(feeCollector, fee);
    }

    /// @notice As escrowTipXdc, in ROXN or USDC pulled from the caller.
    function escrowTipToken(uint256 githubUserId, Currency currency, uint256 amount, uint16 maxFeeBps)
        external
        onlyDelegated nonReentrant
        whenNotPaused
        returns (uint256 tipId)
    {
        if (currency == Currency.XDC) revert InvalidCurrency(currency);
        uint256 fee;
        (tipId, fee) = _escrowTip(githubUserId, currency, amount, maxFeeBps);
        _pullToken(currency, amount, fee);
    }

    /// @notice The operator pays a held tip to the address its GitHub user registered. Counted against the
    ///         total cap; queued like a payout when over it, younger than payoutDelay, or above the
    ///         threshold to an address never paid before.
    function payTip(uint256 tipId, address to) external onlyDelegated nonReentrant whenNotPaused onlyRole(OPERATOR_ROLE) {
        _checkRecipient(to);
        Tip storage tip = _tips[tipId];
        if (tip.status != TipStatus.Held) revert UnknownTip(tipId, tip.status);
        tip.recipient = to;
        // A held bounty share: its bounty's money age and its repository's cap; a tip: its own age, "repository 0".
        bool share = tip.tipper == address(0);
        HeldShare storage held = _heldShares[tipId];
        uint256 readyAt =
            _waitUntil(share ? held.payableAt : tip.createdAt + payoutDelay, 0, tip.currency, to, tip.amount);
        bool within = _withinCaps(share ? held.repoId : 0, tip.currency, tip.amount);
        if (within && readyAt == 0) {
            tip.status = TipStatus.Paid;
            _owed[uint8(tip.currency)] -= tip.amount;
            _paidBefore[to] = true;
            emit TipPaid(tipId, to, tip.currency, tip.amount, msg.sender);
            _send(tip.currency, to, tip.amount);
        } else {
            tip.status = TipStatus.Queued;
            _enqueue(Outflow(0, tipId, tip.amount, to, 0, tip.currency, OutflowKind.Tip), _queuedUntil(within, readyAt));
        }
    }

    /// @notice The tipper (or the operator on their behalf) takes a held tip back, TIP_REFUND_DELAY after it was made.
    ///         A held bounty share has no tipper: TIP_REFUND_DELAY after it was held, the operator or a pool
    ///         manager of its repository returns it to that repository's pool (HeldShareReturned); it never goes
    ///         to any other address than its GitHub user's.
    function refundTip(uint256 tipId) external onlyDelegated nonReentrant whenNotPaused {
        Tip storage tip = _tips[tipId];
        if (tip.status != TipStatus.Held) revert UnknownTip(tipId, tip.status);
        address tipper = tip.tipper;
        uint256 repoId = _heldShares[tipId].repoId;
        bool allowed = tipper == address(0) ? _isManager(repoId, msg.sender) : msg.sender == tipper;
        if (!allowed && !hasRole(OPERATOR_ROLE, msg.sender)) revert NotTipper(tipId, msg.sender);
        uint256 readyAt = tip.createdAt + TIP_REFUND_DELAY;
        if (block.timestamp < readyAt) revert NotReady(readyAt);
        tip.status = TipStatus.Refunded;
        if (tipper == address(0)) {
            // Still owed, now as the pool's.
            _pools[repoId][uint8(tip.currency)] += tip.amount;
            emit HeldShareReturned(tipId, repoId, _heldShares[tipId].issueNumber, tip.currency, tip.amount, msg.sender);
            return;
        }
        _owed[uint8(tip.currency)] -= tip.amount;
        emit TipRefunded(tipId, tipper, tip.currency, tip.amount, msg.sender);
        _send(tip.currency, tipper, tip.amount);
    }

    // Views of v2 (moved here from RepoRewards for its size; the same ABI at the same address).

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

    /// @notice As v2: amount is the whole bounty (pool's share + funders' shares). A cancelled bounty keeps
    ///         its last currency and amount for the record.
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

    /// @notice What the contract owes in `currency`: pools + open bounties + funders' shares to refund +
    ///         escrowed tips + queued outflows.
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

    /// @notice Everything about a bounty: its shares, when it pays at once, a requested cancellation, its funders.
    function getBountyDetails(uint256 repoId, uint256 issueNumber) external view returns (BountyDetails memory) {
        Bounty storage b = _bounties[repoId][issueNumber];
        return BountyDetails(
            b.currency,
            b.status,
            b.amount,
            b.poolShare,
            b.boosted,
            b.payableAt,
            b.cancelReadyAt,
            b.cancelWhole,
            b.recipient,
            b.round,
            _funders[repoId][issueNumber][b.round].length
        );
    }

    /// @notice The funders of the bounty's current round, in the order of their first boost (refunded ones included).
    function funders(uint256 repoId, uint256 issueNumber) external view returns (address[] memory) {
        return _funders[repoId][issueNumber][_bounties[repoId][issueNumber].round];
    }

    /// @return amount The funder's share still in the bounty (0 once refunded; kept once paid).
    function getBoost(uint256 repoId, uint256 issueNumber, address funder)
        external
        view
        returns (uint256 amount, uint256 expiresAt, uint256 withdrawReadyAt)
    {
        Boost storage share = _boosts[repoId][issueNumber][_bounties[repoId][issueNumber].round][funder];
        return (share.amount, share.expiresAt, share.withdrawReadyAt);
    }

    function getTip(uint256 tipId) external view returns (Tip memory) {
        return _tips[tipId];
    }

    /// @notice A queued split payout's recipients and amounts (a queued single payout: its one recipient).
    function getOutflowShares(uint256 id) external view returns (address[] memory, uint256[] memory) {
        return (_splitRecipients[id], _splitAmounts[id]);
    }

    /// @notice A queued split payout's held parts: GitHub user ids and their amounts (escrowed when it runs).
    function getOutflowHeldShares(uint256 id) external view returns (uint256[] memory, uint256[] memory) {
        return (_splitHeldUsers[id], _splitHeldAmounts[id]);
    }

    /// @notice The bounty a held share (a tip without a tipper) came from, and when its money was payable.
    function getHeldShare(uint256 tipId) external view returns (HeldShare memory) {
        return _heldShares[tipId];
    }

    /// @notice Whether this contract ever paid `account` a bounty or a tip (payouts to new addresses above the threshold wait).
    function hasBeenPaid(address account) external view returns (bool) {
        return _paidBefore[account];
    }

    function newRecipientThreshold(Currency currency) external view returns (uint256) {
        return _newRecipientThresholds[uint8(currency)];
    }

    // ---- Internals ----

    function _boost(
        uint256 repoId,
        uint256 issueNumber,
        Currency currency,
        uint256 gross,
        uint64 expiresAt,
        uint16 maxFeeBps
    ) private returns (uint256 fee) {
        Bounty storage bounty = _bounties[repoId][issueNumber];
        if (bounty.status == BountyStatus.Open) {
            if (bounty.currency != currency) revert CurrencyMismatch(bounty.currency, currency);
        } else {
            _startRound(repoId, issueNumber, bounty, currency);
        }
        uint256 minimum = minimumBounty(currency);
        if (gross < minimum) revert BelowMinimum(currency, gross, minimum);
        if (feeBps > maxFeeBps) revert FeeTooHigh(feeBps, maxFeeBps);
        fee = gross * feeBps / BPS_DENOMINATOR;
        uint256 net = gross - fee;
        Boost storage share = _boosts[repoId][issueNumber][bounty.round][msg.sender];
        if (share.amount == 0) {
            if (expiresAt != 0 && expiresAt <= block.timestamp) revert ExpiryInvalid(block.timestamp, expiresAt);
            if (!share.listed) {
                share.listed = true;
                _funders[repoId][issueNumber][bounty.round].push(msg.sender);
            }
            share.expiresAt = expiresAt;
        } else if (expiresAt != 0) {
            // A later boost keeps (0) or extends its expiry; a share without one keeps none.
            if (share.expiresAt == 0 || expiresAt < share.expiresAt) revert ExpiryInvalid(share.expiresAt, expiresAt);
            share.expiresAt = expiresAt;
        }
        share.amount += net;
        bounty.boosted += net;
        bounty.amount += net;
        _owed[uint8(currency)] += net;
        _touch(bounty);
        emit BountyBoosted(repoId, issueNumber, currency, msg.sender, gross, fee, net, share.expiresAt);
    }

    function _refundBoost(uint256 repoId, uint256 issueNumber, address funder) private {
        Bounty storage bounty = _bounties[repoId][issueNumber];
        Boost storage share = _boosts[repoId][issueNumber][bounty.round][funder];
        if (share.amount == 0) revert NoShare(repoId, issueNumber, funder);
        if (bounty.status == BountyStatus.Cancelled) {
            _refund(repoId, issueNumber, bounty, share, funder, RefundReason.Cancelled);
        } else if (
            bounty.status == BountyStatus.Open && share.expiresAt != 0 && block.timestamp >= share.expiresAt
        ) {
            _refund(repoId, issueNumber, bounty, share, funder, RefundReason.Expired);
        } else {
            revert NotRefundable(repoId, issueNumber, funder);
        }
    }

    /// @dev Returns the funder's whole share; an open bounty left with nothing ends (BountyCancelled, amount 0).
    function _refund(
        uint256 repoId,
        uint256 issueNumber,
        Bounty storage bounty,
        Boost storage share,
        address funder,
        RefundReason reason
    ) private {
        uint256 amount = share.amount;
        Currency currency = bounty.currency;
        share.amount = 0;
        share.withdrawReadyAt = 0;
        bounty.boosted -= amount;
        _owed[uint8(currency)] -= amount;
        if (bounty.status == BountyStatus.Open) {
            bounty.amount -= amount;
            if (bounty.amount == 0) {
                bounty.status = BountyStatus.Cancelled;
                bounty.cancelReadyAt = 0;
                emit BountyCancelled(repoId, issueNumber, currency, 0, msg.sender);
            }
        }
        emit BoostRefunded(repoId, issueNumber, currency, funder, amount, reason, msg.sender);
        _send(currency, funder, amount);
    }

    function _tipAmounts(address recipient, uint256 gross, uint16 maxFeeBps)
        private
        view
        returns (uint256 fee, uint256 net)
    {
        _checkRecipient(recipient);
        if (gross == 0) revert ZeroAmount();
        if (feeBps > maxFeeBps) revert FeeTooHigh(feeBps, maxFeeBps);
        fee = gross * feeBps / BPS_DENOMINATOR;
        net = gross - fee;
        if (net == 0) revert ZeroAmount();
    }

    function _escrowTip(uint256 githubUserId, Currency currency, uint256 gross, uint16 maxFeeBps)
        private
        returns (uint256 tipId, uint256 fee)
    {
        if (githubUserId == 0) revert ZeroAmount();
        uint256 minimum = minimumBounty(currency);
        if (gross < minimum) revert BelowMinimum(currency, gross, minimum);
        if (feeBps > maxFeeBps) revert FeeTooHigh(feeBps, maxFeeBps);
        fee = gross * feeBps / BPS_DENOMINATOR;
        uint256 net = gross - fee;
        tipId = ++nextTipId;
        _tips[tipId] = Tip(msg.sender, uint64(block.timestamp), currency, TipStatus.Held, address(0), githubUserId, net);
        _owed[uint8(currency)] += net;
        emit TipEscrowed(tipId, msg.sender, githubUserId, currency, gross, fee, net);
    }

    function _pullImport(Currency currency, uint256 amount) private {
        if (!importOpen) revert ImportClosed();
        if (currency == Currency.XDC) {
            if (msg.value != amount) revert TransferFailed(address(this), msg.value);
        } else {
            if (msg.value != 0) revert InvalidCurrency(Currency.XDC);
            _token(currency).safeTransferFrom(msg.sender, address(this), amount);
        }
    }

}
