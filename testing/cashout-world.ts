/**
 * The world of cash-outs and statements (issue 40) for integration tests: the test stack (anvil, the GitHub
 * emulator, the app with its workers) with the on-ramp simulator's sell side and price endpoint, the mail sink,
 * the cash-out passes, alice's funded repository, and a way to pay rewards as a merged pull request does.
 */
import { expect } from "bun:test";
import type { Address } from "viem";
import { startMailSink, type MailSink } from "../scripts/mail-sink/index.ts";
import { startOnrampSimulator, type OnrampSimulator } from "../scripts/onramp-simulator/index.ts";
import { anvilPrivateKey } from "../scripts/lib/anvil.ts";
import { fixtureRepo } from "../scripts/github-emulator/fixture.ts";
import { startCashoutPasses, type CashoutPasses } from "../api/services/cashout/schedule.ts";
import { payBounty, submitAllocation } from "../api/services/money/bounties.ts";
import type { TestSession } from "./auth.ts";
import { registerFundedRepository, startTestStack, type TestStack } from "./stack.ts";

export const ONRAMP_TEST_SECRET = "cashout-test-secret-0123456789abcdef";
export const CASHOUT_REPO = fixtureRepo("alice/xdc-explorer-lite")!;
export const CASHOUT_REPO_NAME = `${CASHOUT_REPO.owner}/${CASHOUT_REPO.name}`;

export interface CashoutWorld {
  stack: TestStack;
  simulator: OnrampSimulator;
  sink: MailSink;
  passes: CashoutPasses;
  alice: TestSession & { wallet: Address };
  /** Pays a bounty of `amount` XDC on a new issue of alice's repository to `to`; the indexer has read it. Returns the transaction hash. */
  payReward(to: Address, amount: string, pullNumber?: number): Promise<string>;
  stop(): Promise<void>;
}

export async function startCashoutWorld(options: { pollMs?: number; env?: Record<string, string> } = {}): Promise<CashoutWorld> {
  const pollMs = options.pollMs ?? 400;
  const sink = await startMailSink();
  let simulator!: OnrampSimulator;
  const stack = await startTestStack({
    workers: true,
    env: async (url, chain) => {
      simulator = await startOnrampSimulator({
        appId: "issuepool-sim",
        appSecret: ONRAMP_TEST_SECRET,
        webhookUrl: `${url}/api/webhooks/onramp`,
        rpcUrl: chain.anvil.rpcUrl,
        providerKey: anvilPrivateKey(9),
        usdcAddress: chain.deployment.usdc,
      });
      return {
        ONRAMP_APP_ID: "issuepool-sim",
        ONRAMP_APP_SECRET: ONRAMP_TEST_SECRET,
        ONRAMP_URL: simulator.url,
        ONRAMP_API_URL: simulator.url,
        PRICE_SOURCE_URL: simulator.priceUrl,
        PRICE_SOURCE_NAME: "Simulated prices",
        SMTP_URL: sink.smtpUrl,
        CASHOUT_POLL_INTERVAL_MS: String(pollMs),
        ...options.env,
      };
    },
  });
  const passes = startCashoutPasses(stack.t.ctx, { pollIntervalMs: pollMs, minAgeMs: pollMs });
  const alice = await stack.signUp("alice", "poolmanager");
  await stack.chain.fund(alice.wallet, { xdc: "500" });
  await registerFundedRepository(stack, alice, { id: CASHOUT_REPO.id, fullName: CASHOUT_REPO_NAME }, "300");
  let nextIssue = 4000;
  return {
    stack,
    simulator,
    sink,
    passes,
    alice,
    async payReward(to, amount, pullNumber = 77) {
      const issueNumber = nextIssue++;
      const allocated = await submitAllocation(stack.t.ctx, {
        userId: alice.user.id,
        idempotencyKey: `cashout-world-allocate-${issueNumber}`,
        request: { issueNumber },
        repoId: CASHOUT_REPO.id,
        issueNumber,
        currency: "XDC",
        amount,
        issue: { title: `Issue ${issueNumber}`, html_url: `${stack.github.webUrl}/${CASHOUT_REPO_NAME}/issues/${issueNumber}` },
      });
      expect((await stack.t.ctx.outbox.waitForSettled(allocated.id, 30_000)).status).toBe("confirmed");
      const paid = await payBounty(stack.t.ctx, {
        userId: null,
        idempotencyKey: `cashout-world-pay-${issueNumber}`,
        request: { issueNumber },
        repoId: CASHOUT_REPO.id,
        issueNumber,
        to,
        reason: `pull request #${pullNumber} merged`,
      });
      const confirmed = await stack.t.ctx.outbox.waitForSettled(paid.id, 30_000);
      expect(confirmed.status).toBe("confirmed");
      await stack.t.ctx.indexer.catchUp();
      return confirmed.txHash!;
    },
    async stop() {
      await passes.stop();
      await stack.stop();
      await simulator.stop();
      await sink.stop();
    },
  };
}
