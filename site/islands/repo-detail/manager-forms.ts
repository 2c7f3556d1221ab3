/**
 * The pool manager's forms of the Rewards tab, one chunk loaded when a pool
 * manager first opens the tab (funding-panel.tsx): nobody else ever renders
 * them, and most visits never open the tab (issue 16: signed-in pages were
 * heavy).
 */
export { AssignBountyForm } from "./assign-bounty-form.tsx";
export { WithdrawForm } from "./withdraw-form.tsx";
export { RoxnFundingForm, TokenFundingForm, XdcFundingForm } from "./funding-forms.tsx";
