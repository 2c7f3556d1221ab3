/**
 * The simulator's pages. Hono's `html` template escapes every interpolated
 * value. They say plainly that they are a simulation with test money.
 */
import { html, raw } from "hono/html";
import type { HtmlEscapedString } from "hono/utils/html";
import type { SimulatedOrder } from "./order.ts";
import { formatRate } from "./prices.ts";

type Html = HtmlEscapedString | Promise<HtmlEscapedString>;

const STYLE = `
  :root { color-scheme: light dark; }
  body { font: 15px/1.5 system-ui, sans-serif; margin: 0; background: #f3f5f9; color: #1b2030; }
  header { background: #0f3d91; color: #fff; padding: .75rem 1rem; display: flex; justify-content: space-between; gap: 1rem; flex-wrap: wrap; }
  header small { opacity: .85; }
  main { max-width: 30rem; margin: 2rem auto; padding: 0 1rem; }
  section { background: #fff; border: 1px solid #d8deea; border-radius: .75rem; padding: 1.25rem; }
  h1 { font-size: 1.3rem; margin: 0 0 .75rem; }
  dl { display: grid; grid-template-columns: auto 1fr; gap: .35rem 1rem; margin: 0 0 1rem; }
  dt { color: #5b6478; } dd { margin: 0; font-weight: 600; word-break: break-all; }
  label { display: block; font-weight: 600; margin-bottom: .35rem; }
  input { width: 100%; box-sizing: border-box; font: inherit; padding: .55rem .7rem; border: 1px solid #b9c2d3; border-radius: .5rem; }
  .actions { display: flex; gap: .5rem; flex-wrap: wrap; margin-top: 1rem; }
  button, a.button { font: inherit; font-weight: 600; padding: .6rem 1rem; border-radius: .5rem; border: 1px solid transparent; cursor: pointer; text-decoration: none; }
  .primary { background: #0f3d91; color: #fff; } .danger { background: #fff; color: #b42318; border-color: #e4a49c; }
  .muted { color: #5b6478; font-size: .9rem; }
  .state { display: inline-block; padding: .1rem .55rem; border-radius: 1rem; font-size: .85rem; font-weight: 600; background: #eef2fb; }
  @media (prefers-color-scheme: dark) {
    body { background: #121620; color: #e6e9f2; } section { background: #1b2130; border-color: #2c3547; }
    dt, .muted { color: #a3acbf; } input { background: #121620; color: inherit; border-color: #3a4458; } .danger { background: transparent; }
    .state { background: #26324b; }
  }
`;

function layout(title: string, body: Html, refresh?: { seconds: number; url?: string }): Html {
  return html`<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
${refresh ? html`<meta http-equiv="refresh" content="${refresh.seconds}${refresh.url ? `; url=${refresh.url}` : ""}">` : ""}
<title>${title} · On-ramp simulator</title><style>${raw(STYLE)}</style></head>
<body>
<header><strong>On-ramp simulator</strong><small>Development only: simulated INR payments, test XDC on the local chain</small></header>
<main><section>${body}</section></main>
</body>
</html>`;
}

export function messagePage(title: string, message: string): Html {
  return layout(title, html`<h1>${title}</h1><p>${message}</p>`);
}

export function startPage(input: { kind: "buy" | "sell"; walletAddress: string; redirectUrl: string; merchantRecognitionId: string; paisePerXdc: bigint }): Html {
  const buying = input.kind === "buy";
  const title = buying ? "Buy XDC with INR" : "Sell XDC for INR";
  return layout(
    title,
    html`<h1>${title}</h1>
<dl><dt>Wallet</dt><dd>${input.walletAddress}</dd><dt>Price</dt><dd>1 XDC = ₹${formatRate(input.paisePerXdc)} (simulated)</dd></dl>
<form method="post" action="/orders">
  <input type="hidden" name="kind" value="${input.kind}">
  <input type="hidden" name="walletAddress" value="${input.walletAddress}">
  <input type="hidden" name="redirectUrl" value="${input.redirectUrl}">
  <input type="hidden" name="merchantRecognitionId" value="${input.merchantRecognitionId}">
  <label for="amount">${buying ? "Amount in INR" : "Amount of XDC to sell"}</label>
  <input id="amount" name="amount" inputmode="decimal" required value="${buying ? "1000" : "5"}" autocomplete="off">
  <div class="actions"><button type="submit" class="primary">Continue</button></div>
</form>`,
  );
}

const STATE_TEXT: Record<SimulatedOrder["state"], string> = {
  created: "Awaiting payment",
  delivering: "Delivering",
  awaiting_crypto: "Waiting for your XDC",
  success: "Completed",
  failed: "Failed",
};

export function orderPage(order: SimulatedOrder, returnUrl: string): Html {
  const buying = order.kind === "buy";
  const finished = order.state === "success" || order.state === "failed";
  const body = html`<h1>Order ${order.orderId}</h1>
<p><span class="state" data-order-state="${order.state}">${STATE_TEXT[order.state]}</span></p>
<dl>
  <dt>${buying ? "You pay" : "You receive"}</dt><dd>₹${order.fiatAmount}</dd>
  <dt>${buying ? "You receive" : "You send"}</dt><dd>${order.cryptoAmount} XDC</dd>
  <dt>Wallet</dt><dd>${order.walletAddress}</dd>
  ${order.depositAddress ? html`<dt>Deposit address</dt><dd>${order.depositAddress}</dd>` : ""}
  ${order.transactionHash ? html`<dt>Transaction</dt><dd>${order.transactionHash}</dd>` : ""}
  ${order.error ? html`<dt>Problem</dt><dd>${order.error}</dd>` : ""}
</dl>
${
  order.state === "created"
    ? html`<p class="muted">${buying ? "Simulate the INR payment:" : "Confirm the sale; Issuepool then sends the XDC from your wallet to the deposit address."}</p>
<div class="actions">
  <form method="post" action="/orders/${order.orderId}/complete"><button type="submit" class="primary">Complete payment</button></form>
  <form method="post" action="/orders/${order.orderId}/fail"><button type="submit" class="danger">Fail payment</button></form>
</div>`
    : order.state === "awaiting_crypto"
      ? html`<p class="muted">Waiting for ${order.cryptoAmount} XDC to arrive from your Issuepool wallet. This page refreshes by itself.</p>`
      : finished
        ? html`<p class="muted">Taking you back to Issuepool…</p><div class="actions"><a class="button primary" href="${returnUrl}">Return to Issuepool</a></div>`
        : html`<p class="muted">Working…</p>`
}`;
  return layout(`Order ${order.orderId}`, body, finished ? { seconds: 1, url: returnUrl } : order.state === "created" ? undefined : { seconds: 1 });
}

/** The provider's identity check for cash-outs (simulated: one button approves it). */
export function kycPage(customerId: string, status: string): Html {
  return layout(
    "Verify your identity",
    html`<h1>Verify your identity</h1>
<p>Before paying INR to a UPI account the provider must know who you are. Customer <code>${customerId}</code>: <span class="state" data-kyc-state="${status}">${status}</span>.</p>
<form method="post"><div class="actions"><button type="submit" class="primary">Verify identity (simulated)</button></div></form>`,
  );
}
