import { and, eq, isNull } from "drizzle-orm";
import type { AppContext, DatabaseDeps } from "../../context.ts";
import { scopingIssues, type Currency, type User } from "../../../db/schema/index.ts";
import { conflict, DomainError, ErrorCode, refused } from "../../errors.ts";
import { installationClient } from "../../github/app-auth.ts";
import { GitHubApiError } from "../../github/client.ts";
import { encodeFullName, githubUnavailable } from "../../github/repositories.ts";
import { parseAmount, toDecimalString } from "../../chain/amounts.ts";
import { DECIMALS } from "../../../lib/money.ts";
import { requireManagedRepository } from "../money/access.ts";
import { onChainBounty, onChainPool, submitAllocation } from "../money/bounties.ts";
import { MIN_BOUNTY, requireAmountStep } from "../money/rules.ts";
import { formatAmount } from "../../../lib/money-format.ts";
import type { Plan, PlanTask } from "../../../lib/scoping.ts";
import { getScopingJob } from "./jobs.ts";

/**
 * From plan to bounties: a pool manager turns chosen tasks of a completed
 * plan into GitHub issues of a registered repository they administer
 * (through the GitHub App, dependencies written as "Depends on #n"), and
 * optionally puts the same bounty on each, from the pool, in one confirmed
 * step. One issue per (plan, task, repository), whatever is repeated; one
 * outbox transaction per bounty under a key made of the same three, so a
 * retried request creates nothing twice and pays nothing twice. The normal
 * bounty rules apply (minimum, step, the pool's balance, final once set).
 */
export interface CreateIssuesInput {
  user: User;
  jobId: string;
  repositoryId: number;
  githubRepoFullName: string;
  taskIds: number[];
  label?: string;
  bounty?: { currency: Currency; amount: string };
}

export interface ScopedIssue {
  taskId: number;
  title: string;
  issueNumber: number | null;
  issueUrl: string | null;
  bounty: { currency: Currency; amount: string; status: string; transactionHash: string | null } | null;
}

/** A claimed task whose issue has no number after this long was left by a crash, and is recovered. */
const CLAIM_MS = 60_000;
const MARKER = (jobId: string, taskId: number) => `<!-- issuepool-scoping:${jobId}:${taskId} -->`;
const bountyKey = (jobId: string, taskId: number, repositoryId: number) => `scoping-bounty:${jobId}:${taskId}:${repositoryId}`;

export async function createIssuesFromPlan(ctx: Pick<AppContext, "env" | "database" | "log" | "keyring" | "chain" | "outbox">, input: CreateIssuesInput): Promise<{ issues: ScopedIssue[] }> {
  const job = await getScopingJob(ctx, input.user, input.jobId);
  if (job.status !== "completed" || !job.result) throw conflict("The plan is not ready yet.", "Plan not ready", ErrorCode.PLAN_NOT_READY);
  const plan = job.result;
  const chosen = [...new Set(input.taskIds)].sort((a, b) => a - b).map((id) => plan.tasks.find((t) => t.id === id));
  if (chosen.length === 0) throw refused(ErrorCode.INVALID_SELECTION, "Choose at least one task.");
  if (chosen.some((t) => !t)) throw refused(ErrorCode.INVALID_SELECTION, "A chosen task is not in this plan.");
  const tasks = chosen as PlanTask[];

  const { repository } = await requireManagedRepository(ctx, input.user, { repoId: input.repositoryId, fullName: input.githubRepoFullName, action: "openIssues" });
  if (!repository.installationId)
    throw conflict("Install the Issuepool GitHub App on this repository first: issues are opened by the app.", "GitHub App not installed", ErrorCode.APP_NOT_INSTALLED);

  // The bounty rules, for all of them at once, before anything is created.
  let bounty: { currency: Currency; amount: bigint } | undefined;
  if (input.bounty) {
    const decimals = DECIMALS[input.bounty.currency];
    const parsed = parseAmount(input.bounty.amount, decimals);
    if (!parsed.ok || parsed.value === 0n) throw invalidAmount("Please enter a valid bounty amount.");
    const minimum = MIN_BOUNTY[input.bounty.currency];
    if (parsed.value < minimum) throw invalidAmount(`Minimum bounty must be at least ${toDecimalString(minimum, decimals)} ${input.bounty.currency}`, ErrorCode.BELOW_MINIMUM);
    requireAmountStep(parsed.value, input.bounty.currency);
    bounty = { currency: input.bounty.currency, amount: parsed.value };
    const pending = [];
    for (const task of tasks) if (!(await ctx.outbox.findByKey(input.user.id, bountyKey(job.jobId, task.id, input.repositoryId)))) pending.push(task);
    const available = (await onChainPool(ctx, input.repositoryId))[bounty.currency];
    const needed = bounty.amount * BigInt(pending.length);
    if (needed > available)
      throw invalidAmount(
        `${pending.length} bounties of ${formatAmount(bounty.amount, bounty.currency, 4)} ${bounty.currency} need ${formatAmount(needed, bounty.currency, 4)} ${bounty.currency}; the pool holds ${formatAmount(available, bounty.currency, 4)} ${bounty.currency}.`,
      );
  }

  const client = await installationClient(ctx, repository.installationId);
  const path = `/repos/${encodeFullName(repository.fullName)}/issues`;
  const numbers = new Map<number, number>();
  for (const row of await linksOf(ctx, job.jobId, input.repositoryId)) if (row.issueNumber) numbers.set(row.taskId, row.issueNumber);
  const label = (input.label ?? "issuepool").trim().slice(0, 50);

  for (const task of tasks) {
    if (numbers.has(task.id)) continue;
    const [fresh] = await ctx.database.db
      .insert(scopingIssues)
      .values({ jobId: job.jobId, taskId: task.id, repositoryId: input.repositoryId })
      .onConflictDoNothing()
      .returning();
    let issue: { number: number; html_url: string } | undefined;
    if (!fresh) {
      const [claimed] = await ctx.database.db
        .select()
        .from(scopingIssues)
        .where(and(eq(scopingIssues.jobId, job.jobId), eq(scopingIssues.taskId, task.id), eq(scopingIssues.repositoryId, input.repositoryId)));
      if (claimed?.issueNumber) {
        numbers.set(task.id, claimed.issueNumber);
        continue;
      }
      // Another request is opening it right now: do not open a second one.
      if (claimed && Date.now() - claimed.createdAt.getTime() < CLAIM_MS) throw conflict("These issues are being created right now. Reload in a moment.", "In progress", ErrorCode.IN_PROGRESS);
      // A crash between GitHub's answer and our write left a row without a number: find the issue by its marker before opening another.
      issue = await findByMarker(client, path, MARKER(job.jobId, task.id));
      await ctx.database.db
        .update(scopingIssues)
        .set({ createdAt: new Date() })
        .where(and(eq(scopingIssues.jobId, job.jobId), eq(scopingIssues.taskId, task.id), eq(scopingIssues.repositoryId, input.repositoryId)));
    }
    if (!issue) {
      try {
        issue = await client.post<{ number: number; html_url: string }>(path, {
          title: task.title.slice(0, 256),
          body: issueBody(plan, task, numbers, job.fileName, MARKER(job.jobId, task.id)),
          labels: label ? [label] : [],
        });
      } catch (err) {
        if (err instanceof GitHubApiError && err.status < 500) throw new DomainError({ code: ErrorCode.GITHUB_REFUSED, error: "GitHub refused", message: `GitHub refused to open the issue: ${err.message}` });
        throw githubUnavailable();
      }
    }
    numbers.set(task.id, issue.number);
    await ctx.database.db
      .update(scopingIssues)
      .set({ issueNumber: issue.number, issueUrl: issue.html_url })
      .where(and(eq(scopingIssues.jobId, job.jobId), eq(scopingIssues.taskId, task.id), eq(scopingIssues.repositoryId, input.repositoryId), isNull(scopingIssues.issueNumber)));
    ctx.log.info("scoping issue opened", { jobId: job.jobId, taskId: task.id, repo: repository.fullName, issue: issue.number });
  }

  if (bounty) {
    for (const task of tasks) {
      const key = bountyKey(job.jobId, task.id, input.repositoryId);
      const request = { route: "scoping_bounty", repoId: input.repositoryId, issueNumber: numbers.get(task.id)!, currency: bounty.currency, amount: bounty.amount.toString() };
      if (await ctx.outbox.replay(input.user.id, key, request)) continue;
      const current = await onChainBounty(ctx, input.repositoryId, numbers.get(task.id)!);
      if (current.status === "open" || current.status === "paid") continue; // set once, final
      await submitAllocation(ctx, {
        userId: input.user.id,
        idempotencyKey: key,
        request,
        repoId: input.repositoryId,
        issueNumber: numbers.get(task.id)!,
        currency: bounty.currency,
        amount: toDecimalString(bounty.amount, DECIMALS[bounty.currency]),
        issue: { title: task.title, html_url: (await linksOf(ctx, job.jobId, input.repositoryId)).find((r) => r.taskId === task.id)?.issueUrl ?? "" },
        replayChecked: true,
      });
    }
  }
  return { issues: (await scopedIssues(ctx, input.user, job.jobId)).filter((i) => tasks.some((t) => t.id === i.taskId)) };
}

/** The issues made from a plan so far (any repository), with their bounties as the outbox sees them. */
export async function scopedIssues(ctx: Pick<AppContext, "database" | "outbox">, user: User, jobId: string): Promise<ScopedIssue[]> {
  const job = await getScopingJob(ctx, user, jobId);
  const rows = await ctx.database.db.select().from(scopingIssues).where(eq(scopingIssues.jobId, job.jobId));
  const out: ScopedIssue[] = [];
  for (const row of rows.sort((a, b) => a.taskId - b.taskId)) {
    const tx = await ctx.outbox.findByKey(user.id, bountyKey(job.jobId, row.taskId, row.repositoryId));
    const intent = tx ? (JSON.parse(tx.intent) as { currency: Currency; amount: string }) : undefined;
    out.push({
      taskId: row.taskId,
      title: job.result?.tasks.find((t) => t.id === row.taskId)?.title ?? `Task ${row.taskId}`,
      issueNumber: row.issueNumber,
      issueUrl: row.issueUrl,
      bounty:
        tx && intent
          ? { currency: intent.currency, amount: toDecimalString(BigInt(intent.amount), DECIMALS[intent.currency]), status: tx.status, transactionHash: tx.txHash ?? null }
          : null,
    });
  }
  return out;
}

function linksOf(ctx: DatabaseDeps, jobId: string, repositoryId: number) {
  return ctx.database.db
    .select()
    .from(scopingIssues)
    .where(and(eq(scopingIssues.jobId, jobId), eq(scopingIssues.repositoryId, repositoryId)));
}

async function findByMarker(client: Awaited<ReturnType<typeof installationClient>>, path: string, marker: string) {
  try {
    const recent = await client.get<{ number: number; html_url: string; body: string | null; pull_request?: unknown }[]>(path, { state: "all", sort: "created", direction: "desc", per_page: 100 });
    return recent.find((i) => !i.pull_request && i.body?.includes(marker));
  } catch {
    throw githubUnavailable();
  }
}

function issueBody(plan: Plan, task: PlanTask, numbers: Map<number, number>, fileName: string, marker: string): string {
  const dependencies = task.dependencies.map((id) => {
    const number = numbers.get(id);
    const title = plan.tasks.find((t) => t.id === id)?.title ?? `task ${id}`;
    return number ? `- Depends on #${number}` : `- Depends on task ${id} of the plan ("${title}"), not opened as an issue`;
  });
  return [
    task.description,
    "",
    `**Estimated complexity:** ${task.estimatedComplexity}${task.complexityReasons?.length ? `: ${task.complexityReasons.join(", ")}` : ""}`,
    ...(task.phase ? [`**Phase:** ${task.phase}`] : []),
    ...(dependencies.length ? ["", "**Dependencies**", ...dependencies] : []),
    "",
    `_Planned with Issuepool's AI scoping agent from "${fileName}" (${plan.projectName}, task ${task.id} of ${plan.tasks.length})._`,
    marker,
  ].join("\n");
}

const invalidAmount = (message: string, code: ErrorCode = ErrorCode.INVALID_AMOUNT) => new DomainError({ code, error: "Invalid Amount", message });
