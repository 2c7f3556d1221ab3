/**
 * The FAQ, section by section (spec section 2, "FAQ"). Answers follow the
 * platform as built: a 0.5% fee read from the contract, the network of this
 * deployment (shown in the banner), bounties final once set.
 */
export interface FaqEntry {
  q: string;
  a: string;
}
export interface FaqSection {
  id: string;
  title: string;
  entries: FaqEntry[];
}

export const FAQ_SECTIONS: FaqSection[] = [
  {
    id: "general",
    title: "General Platform Questions",
    entries: [
      { q: "What is Issuepool?", a: "Issuepool links GitHub repositories to reward pools on the XDC Network. Maintainers fund a pool for their repository and put a fixed bounty on issues; contributors who solve an issue are paid on-chain when their pull request is merged." },
      { q: "Who is it for?", a: "Pool managers are repository admins who fund pools and set bounties. Contributors pick funded issues, submit a fix and get paid. You choose your role when you complete registration." },
      { q: "What does it cost?", a: "Contributors pay nothing. Funding a pool carries a platform fee of 0.5% (50 basis points); the rest goes to the repository's pool. Network fees on XDC are a fraction of a cent." },
      { q: "Why is it labelled Beta?", a: "The product is young and still changing. Funds are held by audited-style, open-source contracts and every payment is visible on-chain, but expect rough edges and tell us about them." },
    ],
  },
  {
    id: "blockchain",
    title: "Blockchain & Tokens",
    entries: [
      { q: "Which network does Issuepool use?", a: "The XDC Network. The banner at the top of this page and the tooltip on your wallet box say which environment this deployment runs on: the live XDC Mainnet with real value, the Apothem test network, or a local development chain." },
      { q: "Which currencies can fund a pool?", a: "XDC (the network's own coin), ROXN (the platform token, 18 decimals, capped at 1,000,000,000) and USDC. Each issue's bounty is in one currency." },
      { q: "What are the fees?", a: "0.5% of every funding goes to the platform's fee collector; the net amount is added to the pool. Bounties and payouts carry no platform fee. Network fees are about $0.001 per transaction." },
      { q: "Where can I check a transaction?", a: "Every success message links to the block explorer. Pools, bounties and payouts are recorded by the rewards contract, so anyone can verify them." },
    ],
  },
  {
    id: "account",
    title: "Account & Wallet",
    entries: [
      { q: "How do I sign in?", a: "With your GitHub account. Issuepool only reads your public profile, e-mail and, for pool managers, which repositories you administer." },
      { q: "What is my Issuepool wallet?", a: "When you complete registration, Issuepool creates a custodial XDC wallet for you. Its private key is encrypted at rest and only used to sign the transactions you ask for. Rewards are paid to this address." },
      { q: "Can I move my wallet to MetaMask?", a: "Yes. On the Wallet page choose Export to MetaMask: we e-mail you a 6-digit code, and after you enter it the key is sent encrypted to your browser and shown for 60 seconds." },
      { q: "Can I buy or sell XDC?", a: "Yes, for Indian rupees through our on-ramp partner: use 'Buy XDC with INR' or 'Withdraw XDC to INR' on the Wallet page. Your recent purchases and withdrawals are listed under Transactions." },
    ],
  },
  {
    id: "shared-rewards-and-tips",
    title: "Shared Rewards & Tips",
    entries: [
      { q: "My pull request had co-authors. Who gets the bounty?", a: "You and every co-author named in a 'Co-authored-by:' line of its commits share it, in equal shares by default. GitHub's no-reply addresses (ID+login@users.noreply.github.com) are recognised; other addresses count when GitHub shows them publicly on exactly one account. Bots and organisations are left out." },
      { q: "When is a shared reward paid?", a: "After a release window (24 hours by default) that starts at the merge; the bot's comment and the repository page show when it ends. Until then the pool manager can change the shares, on the repository page or with '/split @alice 60 @bob 40' in a comment." },
      { q: "What happens to rounding?", a: "Shares always add up to the whole bounty. Each person gets their exact share rounded down to the smallest unit (wei); the few wei left over go to the pull request's author." },
      { q: "A co-author has no Issuepool wallet. Is their share lost?", a: "No, and nobody else waits for them. When the window ends, everyone with a wallet is paid at once; the share of anyone without one is held in the escrow for their GitHub account, and sent to their wallet as soon as they sign in and register (exactly once). Nobody else can take it: only after 30 days unclaimed may the pool manager return it to the repository's pool, never to another person. If nobody with a share has a wallet yet, the whole reward waits for the first to register, and the pool manager can still change the shares." },
      { q: "How do I tip someone?", a: "Use the Tip button next to their name, or comment '/tip 10 XDC @login' on an issue or pull request: the bot answers with a link only you can open, and the tip leaves your wallet when you confirm it there. The contract keeps a 0.5% fee, as on funding." },
      { q: "Can I tip someone who is not on Issuepool yet?", a: "Yes. The tip waits in the contract's escrow under their GitHub account and reaches them when they register. If they never do, you can take it back after 30 days." },
    ],
  },
  {
    id: "repositories",
    title: "Repository Management",
    entries: [
      { q: "How do I register a repository?", a: "Sign in as a pool manager, open your profile, and under 'My GitHub Repositories (Admin)' choose Register (or 'Install App & Register' if the Issuepool GitHub App is not installed yet)." },
      { q: "Who can fund a repository?", a: "Only repository admins can fund a repository's pool, and the pool manager distributes its rewards. Issuepool checks your admin rights with GitHub on every funding." },
      { q: "Is there a funding limit?", a: "Yes: 1000 XDC per repository over any rolling 24 hours, and 1000 XDC per funder across all pools and boosts. The funding panel shows how much remains for you and when the window resets." },
      { q: "Are private repositories shown publicly?", a: "No. Private repositories never appear on public pages, lists, badges or embeds." },
    ],
  },
  {
    id: "rewards",
    title: "Issue Rewards",
    entries: [
      { q: "How is a bounty set?", a: "A pool manager opens Set Reward on an issue, chooses XDC, ROXN or USDC and an amount from the pool. The minimum is 1 XDC or 0.0001 ROXN/USDC. A bounty is final once set." },
      { q: "How do I earn a bounty?", a: "Comment /attempt on a funded issue on GitHub (new to Issuepool? choose Contribute on the issue's row on Issuepool: it signs you in with GitHub and puts you down for it), open a pull request that closes it (for example with 'Fixes #12' in the description) and get it merged. The bounty is paid to your wallet automatically, once." },
      { q: "What happens if an issue is closed without a fix?", a: "An issue closed as not planned returns its bounty to the repository's pool, and every funder's boost to its funder. Funds are never forfeited." },
      { q: "Can a bounty be paid twice?", a: "No. The contract pays each bounty at most once, to one contributor, and the platform records every payout." },
    ],
  },
  {
    id: "funding-issues",
    title: "Funding an Issue (Boosts and Community Bounties)",
    entries: [
      { q: "Who can fund an issue?", a: "Anyone signed in with an Issuepool wallet, on any open issue of a public GitHub repository, registered or not. Use Boost on the issue's row, or comment `/bounty 50 XDC` on the issue: the bot answers with a link that only you can open, valid for 30 minutes and usable once, where you confirm the payment. Your boost is added to the issue's bounty in its currency; the first boost on an issue without a bounty starts a community bounty." },
      { q: "What does a boost cost?", a: "The minimum is 1 XDC, or 0.0001 ROXN or USDC. The platform fee is 0.5% of what you send, read from the rewards contract; the rest is your share of the bounty. You can fund at most 1000 XDC a day across pools and boosts." },
      { q: "What happens to my money when the issue is fixed?", a: "The merged fix's author is paid the whole bounty (the pool manager's part and every funder's share). On a repository without the Issuepool App, the pull request's author claims it and Issuepool checks with GitHub that the pull request is merged, closes the issue and is theirs." },
      { q: "What happens to my money if nobody fixes it?", a: "It is never kept. You can set an expiry date: after it, your share comes back to your wallet by itself. You can take your boost back at any time while nobody has claimed the issue. If the issue is closed as not planned, every funder gets exactly their share back. If the pool manager cancels their bounty, only the pool's part goes back to the pool: your share stays on the issue, still yours to take back or to expire. The bot's comment on the issue and your funding history say what happened." },
      { q: "Can I fund anonymously?", a: "Yes. Tick 'anonymous' and your GitHub name is left out of every list, page, badge and comment; only you see it in your history." },
    ],
  },
  {
    id: "trust",
    title: "Why you can trust a bounty here",
    entries: [
      { q: "Is the money really there?", a: "Yes. A bounty is allocated from the repository's pool in the rewards contract on the XDC Network: the funds sit in the contract (in escrow), not with the sponsor, and every pool and bounty page shows what the contract holds now. Anyone can check it on the block explorer." },
      { q: "Who decides that I get paid?", a: "Nobody has to. When a pull request that closes the issue is merged, the platform pays the bounty to the author's wallet on its own, and the bot comments on the issue with the transaction. A sponsor cannot take a bounty back while someone works on it; one closed without a merged fix waits for the pool manager's decision, and that wait is shown publicly." },
      { q: "What do the reliability figures mean?", a: "For each repository, from the platform's own records and the chain: how many bounties were paid; the median and the 90th percentile of the time from merge (or from the decision asked for) to the payout's block, shown as the bound they fall within (5 and 15 minutes, an hour, 6 hours, a day, 3, 7, 14 and 30 days); the share paid automatically on a merged fix rather than by hand; how many decisions are waiting and since when; how many bounties were cancelled back to the pool; and the funds in escrow now. They are updated as payouts happen and appear on the repository page, the repository cards, /explore, the embed and the badge /badge/{owner}/{repo}/reliability.svg." },
      { q: "Can a sponsor fake them?", a: "No. Payouts, cancellations and escrow come from the contract's events, which the platform mirrors and re-checks against the chain; the times are when the platform saw the merge and when the payout was mined. Nothing is typed in by the sponsor." },
    ],
  },
  {
    id: "technical",
    title: "Technical Questions",
    entries: [
      { q: "How are merges verified?", a: "Through the Issuepool GitHub App: GitHub sends a signed webhook when a pull request is merged, and Issuepool checks which issues it closes before paying." },
      { q: "Can I show bounties in my README?", a: "Yes. Every registered repository has an SVG badge and an embeddable bounty board; see the repository's public page." },
      { q: "Is there an editor integration?", a: "Yes. The VS Code extension signs in through Issuepool and shows your wallet inside the editor." },
      {
        q: "How does the AI Scoping Agent plan, and can it use a language model?",
        a: "Without a model, a built-in planner reads the document's structure: each requirement (FR-1, user stories, numbered lists, tables, must/shall sentences) becomes a task, background, roles, out-of-scope and milestone sections give context, and complexity comes with its reasons. Whoever runs this Issuepool can set AI_BASE_URL (with AI_MODEL and AI_API_KEY) to any OpenAI-compatible server, such as a hosted model, llama.cpp's server or Ollama, for richer plans; a model plan that leaves requirements out is replaced by the built-in one, and the plan says so.",
      },
    ],
  },
  {
    id: "troubleshooting",
    title: "Troubleshooting",
    entries: [
      { q: "My funding was refused.", a: "XDC funding must be more than 1 XDC, leave at least 0.1 XDC in your wallet for network fees, and stay within the repository's daily limit. The message you saw says which rule applied." },
      { q: "My repository is not in the list.", a: "You need admin rights on the repository on GitHub, and the Issuepool GitHub App must be installed on it." },
      { q: "The export code did not arrive.", a: "Check your spam folder. You can ask for a new code a few times per hour; each code is valid for 10 minutes and can be used once." },
      { q: "A transaction shows as pending.", a: "XDC confirms in seconds. If it stays pending, refresh after a minute: Issuepool keeps every transaction it sends and retries it, it never sends a second one." },
    ],
  },
  {
    id: "pool-manager",
    title: "Pool Manager Guide",
    entries: [
      { q: "1. Become a pool manager", a: "Sign in with GitHub and choose Pool Manager when you complete registration. Your wallet is created at the same time." },
      { q: "2. Install the app and register", a: "From your profile, install the Issuepool GitHub App on your repository and register it. Only repositories where you are an admin can be registered." },
      { q: "3. Fund the pool", a: "In the repository's Rewards tab add XDC (more than 1 XDC, keeping 0.1 XDC for gas) or ROXN (approve, then add). A 0.5% platform fee is deducted; the rest is in your pool." },
      { q: "4. Set bounties", a: "Use Set Reward on an open issue. Choose the currency and amount; the amount is taken from the pool and cannot be changed afterwards." },
      { q: "5. Review and pay", a: "When a contributor's pull request that closes the issue is merged, the bounty is paid automatically. You can also release a bounty by hand to a registered contributor." },
    ],
  },
  {
    id: "future",
    title: "Future Plans",
    entries: [
      { q: "What is coming next?", a: "Splitting a bounty between several contributors, milestone bounties for larger work, and more tokens on the XDC Network." },
      { q: "How can I suggest a feature?", a: "Write to us using the support address below or the support chat. We read everything." },
    ],
  },
];
