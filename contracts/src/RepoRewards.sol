// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {AccessControl} from "@openzeppelin/contracts/access/AccessControl.sol";
import {IAccessControl} from "@openzeppelin/contracts/access/IAccessControl.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {RateLimiter} from "@openzeppelin/contracts/utils/RateLimiter.sol";
import {RepoRewardsBase} from "./RepoRewardsBase.sol";
import {RepoRewardsExtension} from "./RepoRewardsExtension.sol";

/// @title Reward pools per GitHub repository, bounties per issue backed by the pool and by any funder, split payouts and tips (v3)
/// @notice Anyone funds a pool per repository (XDC, ROXN or USDC); the
///         platform (operator) or a pool manager puts the pool's share on an
///         issue; any wallet boosts an issue's bounty with its own share
///         (refunded exactly on expiry, withdrawal or cancellation); a bounty
///         is paid to one contributor or split among several; tips go from a
///         wallet to an address, or wait in escrow for a GitHub user.
///         Invariants: no single key and no single block can move more than
///         the configured caps out of escrow per rolling day; an outflow over
///         a cap is queued, runs only after QUEUE_DELAY, and the guardian can
///         cancel it. Nothing is paid in the same burst as its allocation:
///         money younger than payoutDelay, and a payout above the threshold
///         to an address never paid before, wait payoutDelay in the same
///         queue. A claimed bounty ends in a payment, or in a refund that is
///         requested on-chain and runs only after CLAIM_CANCEL_DELAY.
///         The contract holds at least what it owes per currency: pools +
///         open bounties + funders' shares still to refund + escrowed tips +
///         queued outflows.
/// @dev See docs/contracts.md for the trust model, the design and the migration from v2.
///      Functions this contract does not have (boosts, tips, the v2 import, the v3 views) run as
///      RepoRewardsExtension's code on this contract's storage (fallback, delegatecall): the escrow is
///      bigger than EIP-170's 24,576 bytes. The platform's ABI (contracts/artifacts/RepoRewards.ts) is both.
contract RepoRewards is RepoRewardsBase {
    using RateLimiter for RateLimiter.SlidingWindow;

    /// @notice The code that runs boosts, tips, the import and the v3 views on this contract's storage.
    address public immutable extension;

    /// @param admin The admin (a multisig in production); the deployer never holds a role.
    /// @param adminTransferDelay How long a two-step admin transfer waits (AccessControlDefaultAdminRules).
    /// @param initialCaps Per currency: [per repository per day, in total per day].
    /// @param initialPayoutDelay The minimum age of paid-out money and the new-address wait (≤ MAX_PAYOUT_DELAY; 3600 on XDC).
    /// @param initialNewRecipientThresholds Per currency: payouts above it to an address never paid before wait payoutDelay.
    /// @param initialExtension RepoRewardsExtension deployed with the same tokens.
    constructor(
        address admin,
        uint48 adminTransferDelay,
        address guardian,
        address operator,
        address initialFeeCollector,
        IERC20 roxnToken,
        IERC20 usdcToken,
        uint256 initialManagerDelay,
        uint256[2][3] memory initialCaps,
        uint64 initialPayoutDelay,
        uint256[3] memory initialNewRecipientThresholds,
        RepoRewardsExtension initialExtension
    ) RepoRewardsBase(adminTransferDelay, admin, roxnToken, usdcToken, initialManagerDelay) {
        if (guardian == address(0) || operator == address(0)) revert ZeroAddress();
        if (address(initialExtension.roxn()) != address(roxnToken) || address(initialExtension.usdc()) != address(usdcToken)) {
            revert InvalidRecipient(address(initialExtension));
        }
        extension = address(initialExtension);
        if (
            initialManagerDelay > MAX_MANAGER_DELAY
                || (initialManagerDelay < MIN_MANAGER_DELAY && block.chainid != LOCAL_CHAIN_ID)
        ) revert DelayOutOfBounds(initialManagerDelay);
        _checkRecipient(initialFeeCollector);
        _grantRole(GUARDIAN_ROLE, guardian);
        _grantRole(OPERATOR_ROLE, operator);
        for (uint8 c = 0; c < 3; c++) {
            _setCaps(Currency(c), initialCaps[c][0], initialCaps[c][1]);
            _newRecipientThresholds[c] = initialNewRecipientThresholds[c];
            emit NewRecipientThresholdChanged(Currency(c), initialNewRecipientThresholds[c]);
        }
        _setPayoutDelay(initialPayoutDelay);
        feeBps = 50;
        emit FeeBpsChanged(0, 50);
        feeCollector = initialFeeCollector;
        emit FeeCollectorChanged(address(0), initialFeeCollector);
    }

    /// @notice Only the funding functions add XDC: a plain transfer would belong to no pool.
    receive() external payable {
        revert DirectTransferRejected();
    }

    /// @notice Every other function (boosts, tips, import, v3 views) runs as RepoRewardsExtension's code here.
    fallback() external payable {
        address target = extension;
        assembly {
            calldatacopy(0, 0, calldatasize())
            let ok := delegatecall(gas(), target, 0, calldatasize(), 0, 0)
            returndatacopy(0, 0, returndatasize())
            switch ok
            case 0 { revert(0, returndatasize()) }
            default { return(0, returndatasize()) }
        }
    }

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

    /// @notice Admin, timelocked: the minimum age of paid-out money and the new-address wait (≤ MAX_PAYOUT_DELAY).
    function setPayoutDelay(uint64 newDelay) external onlyRole(DEFAULT_ADMIN_ROLE) {
        _consumeScheduled();
        _setPayoutDelay(newDelay);
    }

    /// @notice Admin, timelocked: payouts above `threshold` to an address never paid before wait payoutDelay.
    function setNewRecipientThreshold(Currency currency, uint256 threshold) external onlyRole(DEFAULT_ADMIN_ROLE) {
        _consumeScheduled();
        _newRecipientThresholds[uint8(currency)] = threshold;
        emit NewRecipientThresholdChanged(currency, threshold);
    }

    /// @notice Moves only what the contract holds above what it owes (forced-in
    ///         XDC, tokens sent to it directly); never a pool, bounty, funder's share, escrowed tip or queued outflow.
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
        _pullToken(currency, amount, fee);
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
            _enqueue(Outflow(repoId, 0, amount, to, 0, currency, OutflowKind.Withdrawal), 0);
        }
    }

    /// @notice A manager or the operator moves `amount` from the pool to the issue's bounty (the pool's
    ///         share). Allowed on an issue without a bounty, a cancelled one whose funders are all refunded,
    ///         or an open community bounty (boosts only) in the same currency. The amount becomes payable at
    ///         once only after payoutDelay.
    function allocateBounty(uint256 repoId, uint256 issueNumber, Currency currency, uint256 amount)
        external
        whenNotPaused
        onlyManagerOrOperator(repoId)
    {
        Bounty storage bounty = _bounties[repoId][issueNumber];
        if (bounty.status == BountyStatus.Open) {
            if (bounty.poolShare != 0) revert BountyExists(repoId, issueNumber, bounty.status);
            if (bounty.currency != currency) revert CurrencyMismatch(bounty.currency, currency);
        } else {
            _startRound(repoId, issueNumber, bounty, currency);
        }
        uint256 minimum = minimumBounty(currency);
        if (amount < minimum) revert BelowMinimum(currency, amount, minimum);
        _debitPool(repoId, currency, amount);
        bounty.poolShare = amount;
        bounty.amount += amount;
        _touch(bounty);
        emit BountyAllocated(repoId, issueNumber, currency, amount, msg.sender);
    }

    /// @notice Records that `contributor` works on the issue (the platform's
    ///         Contribute). From then on the bounty's pool share and funders' shares are only refunded
    ///         after a visible delay (expiries excepted).
    function claimBounty(uint256 repoId, uint256 issueNumber, address contributor)
        external
        whenNotPaused
        onlyRole(OPERATOR_ROLE)
    {
        _checkRecipient(contributor);
        if (_add(_claimants[repoId][issueNumber], contributor)) emit BountyClaimed(repoId, issueNumber, contributor);
    }

    /// @notice A manager or the operator pays the whole open bounty (pool's share + boosts) to one
    ///         contributor, at most once. It goes out at once only when within the caps, all its money is
    ///         older than payoutDelay and the contributor was paid before (or it is at most the
    ///         new-recipient threshold); otherwise it is queued. A manager may pay a claimed bounty only to a claimant.
    function payBounty(uint256 repoId, uint256 issueNumber, address contributor)
        external
        nonReentrant
        whenNotPaused
        onlyManagerOrOperator(repoId)
    {
        _checkRecipient(contributor);
        address[] memory recipients = new address[](1);
        uint256[] memory amounts = new uint256[](1);
        recipients[0] = contributor;
        amounts[0] = _bounties[repoId][issueNumber].amount;
        _payout(repoId, issueNumber, recipients, amounts, new uint256[](0), new uint256[](0), OutflowKind.Payout);
    }

    /// @notice A manager or the operator pays the open bounty to several recipients (distinct, at most
    ///         MAX_SPLIT_RECIPIENTS) with `amounts` summing exactly to the bounty's amount; the platform puts
    ///         the PR author first and gives them the rounding remainder. Same rules as payBounty, for the
    ///         whole split: if any part must wait, the whole split is queued as one outflow.
    function payBountySplit(
        uint256 repoId,
        uint256 issueNumber,
        address[] calldata recipients,
        uint256[] calldata amounts
    ) external nonReentrant whenNotPaused onlyManagerOrOperator(repoId) {
        _payout(repoId, issueNumber, recipients, amounts, new uint256[](0), new uint256[](0), OutflowKind.SplitPayout);
    }

    /// @notice The operator pays a split whose people without a wallet are held: the address parts as
    ///         payBountySplit (same caps and waits, counted on them alone), each held part escrowed as a
    ///         held tip for its GitHub user id (BountyShareHeld), paid by the operator only to the address
    ///         that user registers (payTip: counted against the repository's cap, never before the bounty's
    ///         money was payable), or returned to the repository's pool after TIP_REFUND_DELAY (refundTip).
    ///         All parts (at least one address) sum exactly to the bounty; if the address parts must wait,
    ///         the whole split waits in the queue and the held parts are escrowed when it runs.
    function payBountySplitHeld(
        uint256 repoId,
        uint256 issueNumber,
        address[] calldata recipients,
        uint256[] calldata amounts,
        uint256[] calldata heldUsers,
        uint256[] calldata heldAmounts
    ) external nonReentrant whenNotPaused onlyRole(OPERATOR_ROLE) {
        _payout(repoId, issueNumber, recipients, amounts, heldUsers, heldAmounts, OutflowKind.SplitPayout);
    }

    /// @notice Ends the whole bounty (e.g. the issue closed as not planned): the pool's share goes back to
    ///         the pool and every funder's share becomes refundable by anyone (refundBoost). Unclaimed: at
    ///         once. Claimed: the first call requests it (visible on-chain), a call CLAIM_CANCEL_DELAY later
    ///         carries it out. Manager or operator.
    function cancelBounty(uint256 repoId, uint256 issueNumber) external whenNotPaused onlyManagerOrOperator(repoId) {
        Bounty storage bounty = _openBounty(repoId, issueNumber);
        if (!_cancelDue(repoId, issueNumber, bounty, true)) return;
        _endBounty(repoId, issueNumber, bounty);
    }

    /// @notice Takes only the pool's share back to the pool; the bounty stays open with its funders'
    ///         shares (or ends, as cancelBounty, when it has none). Same claim delay. Manager or operator.
    function cancelPoolShare(uint256 repoId, uint256 issueNumber)
        external
        whenNotPaused
        onlyManagerOrOperator(repoId)
    {
        Bounty storage bounty = _openBounty(repoId, issueNumber);
        if (bounty.poolShare == 0) revert ZeroAmount();
        if (!_cancelDue(repoId, issueNumber, bounty, false)) return;
        if (bounty.boosted == 0) {
            _endBounty(repoId, issueNumber, bounty);
            return;
        }
        uint256 share = bounty.poolShare;
        bounty.poolShare = 0;
        bounty.cancelReadyAt = 0;
        bounty.amount -= share;
        _pools[repoId][uint8(bounty.currency)] += share;
        emit PoolShareCancelled(repoId, issueNumber, bounty.currency, share, msg.sender);
    }

    /// @notice Anyone runs a queued outflow once its time has come; it goes where it was queued to, and no
    ///         longer counts against the caps.
    function executeOutflow(uint256 id) external nonReentrant whenNotPaused {
        Outflow memory outflow = _queue[id];
        if (outflow.readyAt == 0) revert UnknownOutflow(id);
        if (block.timestamp < outflow.readyAt) revert NotReady(outflow.readyAt);
        delete _queue[id];
        _owed[uint8(outflow.currency)] -= outflow.amount;
        if (outflow.kind == OutflowKind.Withdrawal) {
            emit PoolWithdrawn(outflow.repoId, outflow.currency, outflow.amount, outflow.to, msg.sender);
            emit OutflowExecuted(id);
            _send(outflow.currency, outflow.to, outflow.amount);
        } else if (outflow.kind == OutflowKind.Tip) {
            _tips[outflow.issueNumber].status = TipStatus.Paid;
            _paidBefore[outflow.to] = true;
            emit TipPaid(outflow.issueNumber, outflow.to, outflow.currency, outflow.amount, msg.sender);
            emit OutflowExecuted(id);
            _send(outflow.currency, outflow.to, outflow.amount);
        } else {
            Bounty storage bounty = _bounties[outflow.repoId][outflow.issueNumber];
            bounty.status = BountyStatus.Paid;
            address[] memory recipients = _splitRecipients[id];
            uint256[] memory amounts = _splitAmounts[id];
            uint256[] memory heldUsers = _splitHeldUsers[id];
            uint256[] memory heldAmounts = _splitHeldAmounts[id];
            _dropSplit(id);
            emit OutflowExecuted(id);
            _sendShares(outflow.repoId, outflow.issueNumber, bounty, recipients, amounts, heldUsers, heldAmounts, outflow.kind);
        }
    }

    /// @notice The guardian (or admin) drops a queued outflow: a payout's bounty is open again, a tip held
    ///         again, a withdrawal's money back in the pool. Works while paused.
    function cancelOutflow(uint256 id) external {
        if (!hasRole(GUARDIAN_ROLE, msg.sender)) _checkRole(DEFAULT_ADMIN_ROLE);
        Outflow memory outflow = _queue[id];
        if (outflow.readyAt == 0) revert UnknownOutflow(id);
        delete _queue[id];
        if (outflow.kind == OutflowKind.Withdrawal) {
            _pools[outflow.repoId][uint8(outflow.currency)] += outflow.amount;
        } else if (outflow.kind == OutflowKind.Tip) {
            Tip storage tip = _tips[outflow.issueNumber];
            tip.status = TipStatus.Held;
            tip.recipient = address(0);
        } else {
            Bounty storage bounty = _bounties[outflow.repoId][outflow.issueNumber];
            bounty.status = BountyStatus.Open;
            bounty.recipient = address(0);
            _dropSplit(id);
        }
        emit OutflowCancelled(id, outflow.repoId, outflow.issueNumber, outflow.currency, outflow.amount, msg.sender);
    }

    // ---- Internals ----

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

    function _setCaps(Currency currency, uint256 perRepo, uint256 total) private {
        if (perRepo > total || total > maxCap(currency)) revert CapOutOfBounds(currency, perRepo, total);
        _repoCaps[uint8(currency)].updateSettings(CAP_WINDOW, uint208(perRepo));
        _totalCaps[uint8(currency)].updateSettings(CAP_WINDOW, uint208(total));
        emit CapsChanged(currency, perRepo, total);
    }

    function _setPayoutDelay(uint64 newDelay) private {
        if (newDelay > MAX_PAYOUT_DELAY) revert DelayOutOfBounds(newDelay);
        emit PayoutDelayChanged(payoutDelay, newDelay);
        payoutDelay = newDelay;
    }

    function _payout(
        uint256 repoId,
        uint256 issueNumber,
        address[] memory recipients,
        uint256[] memory amounts,
        uint256[] memory heldUsers,
        uint256[] memory heldAmounts,
        OutflowKind kind
    ) private {
        Bounty storage bounty = _openBounty(repoId, issueNumber);
        if (
            recipients.length == 0 || recipients.length + heldUsers.length > MAX_SPLIT_RECIPIENTS
                || amounts.length != recipients.length || heldAmounts.length != heldUsers.length
        ) revert SplitInvalid(recipients.length + heldUsers.length, amounts.length + heldAmounts.length);
        (uint256 sum, uint256 readyAt) = _checkShares(repoId, issueNumber, bounty, recipients, amounts);
        // Held parts leave nothing now: the caps count what goes out (payTip counts the rest when it goes).
        bool within = _withinCaps(repoId, bounty.currency, sum);
        sum += _heldSum(heldUsers, heldAmounts);
        if (sum != bounty.amount) revert SplitInvalid(bounty.amount, sum);
        bounty.recipient = recipients[0];
        bounty.cancelReadyAt = 0;
        if (within && readyAt == 0) {
            // Effects before the transfers, so a re-entering recipient finds it Paid.
            bounty.status = BountyStatus.Paid;
            _owed[uint8(bounty.currency)] -= sum;
            _sendShares(repoId, issueNumber, bounty, recipients, amounts, heldUsers, heldAmounts, kind);
        } else {
            bounty.status = BountyStatus.Queued;
            uint256 id = _enqueue(
                Outflow(repoId, issueNumber, sum, recipients[0], 0, bounty.currency, kind), _queuedUntil(within, readyAt)
            );
            _splitRecipients[id] = recipients;
            _splitAmounts[id] = amounts;
            if (heldUsers.length > 0) {
                _splitHeldUsers[id] = heldUsers;
                _splitHeldAmounts[id] = heldAmounts;
            }
        }
    }

    /// @return sum What the address parts pay.
    /// @return readyAt When they may go (0: at once), as _waitUntil says for each.
    function _checkShares(
        uint256 repoId,
        uint256 issueNumber,
        Bounty storage bounty,
        address[] memory recipients,
        uint256[] memory amounts
    ) private view returns (uint256 sum, uint256 readyAt) {
        bool checkClaims = _claimants[repoId][issueNumber].values.length > 0 && !hasRole(OPERATOR_ROLE, msg.sender);
        for (uint256 i = 0; i < recipients.length; i++) {
            address to = recipients[i];
            _checkRecipient(to);
            if (amounts[i] == 0) revert ZeroAmount();
            for (uint256 j = 0; j < i; j++) {
                if (recipients[j] == to) revert DuplicateRecipient(to);
            }
            if (checkClaims && _claimants[repoId][issueNumber].position[to] == 0) {
                revert NotClaimant(repoId, issueNumber, to);
            }
            sum += amounts[i];
            readyAt = _waitUntil(bounty.payableAt, readyAt, bounty.currency, to, amounts[i]);
        }
    }

    /// @dev Held parts: distinct non-zero GitHub user ids with amounts > 0.
    function _heldSum(uint256[] memory heldUsers, uint256[] memory heldAmounts) private pure returns (uint256 sum) {
        for (uint256 i = 0; i < heldUsers.length; i++) {
            if (heldUsers[i] == 0 || heldAmounts[i] == 0) revert ZeroAmount();
            for (uint256 j = 0; j < i; j++) {
                if (heldUsers[j] == heldUsers[i]) revert DuplicateHeldUser(heldUsers[i]);
            }
            sum += heldAmounts[i];
        }
    }

    function _dropSplit(uint256 id) private {
        delete _splitRecipients[id];
        delete _splitAmounts[id];
        delete _splitHeldUsers[id];
        delete _splitHeldAmounts[id];
    }

    /// @return Whether the cancellation may run now; else it was requested (claimed bounty) and must wait.
    function _cancelDue(uint256 repoId, uint256 issueNumber, Bounty storage bounty, bool whole)
        private
        returns (bool)
    {
        if (_claimants[repoId][issueNumber].values.length == 0) return true;
        uint256 readyAt = bounty.cancelReadyAt;
        if (readyAt == 0 || bounty.cancelWhole != whole) {
            readyAt = block.timestamp + CLAIM_CANCEL_DELAY;
            bounty.cancelReadyAt = uint64(readyAt);
            bounty.cancelWhole = whole;
            emit BountyCancelRequested(repoId, issueNumber, readyAt, msg.sender);
            return false;
        }
        if (block.timestamp < readyAt) revert NotReady(readyAt);
        return true;
    }

    /// @dev The whole bounty ends: the pool's share back to the pool; funders' shares stay owed until refunded.
    function _endBounty(uint256 repoId, uint256 issueNumber, Bounty storage bounty) private {
        bounty.status = BountyStatus.Cancelled;
        bounty.cancelReadyAt = 0;
        _pools[repoId][uint8(bounty.currency)] += bounty.poolShare;
        bounty.poolShare = 0;
        emit BountyCancelled(repoId, issueNumber, bounty.currency, bounty.amount, msg.sender);
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

}
