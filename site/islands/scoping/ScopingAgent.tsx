import { useCallback, useEffect, useRef, useState, type DragEvent } from "react";
import { api, ApiRequestError, type ApiResponse } from "../../lib/api.ts";
import { SCOPING_POLL_MS, type Plan } from "../../../lib/scoping.ts";
import { cardClass } from "../../lib/ui.ts";
import { loadSession, watchSession, $csrfToken } from "../../stores/session.ts";
import { toast } from "../../stores/toast.ts";
import { ButtonLink, Button } from "../ui/button.tsx";
import { Icon } from "../ui/icon.tsx";
import { Spinner } from "../ui/spinner.tsx";
import { PlanView } from "./plan-view.tsx";
import { EarlierPlans, type JobSummary } from "./earlier-plans.tsx";

/** The spec's texts (sections 5 and 8). */
export const SCOPING_TEXTS = {
  signIn: "You must be logged in to use the AI Scoping Agent.",
  upload: "File upload failed.",
  process: "Failed to process the document.",
  fetch: "Failed to fetch results.",
  unknown: "An unknown error occurred.",
} as const;

const MAX_BYTES = 5 * 1024 * 1024;
const ACCEPT = ".txt,.md,.markdown,.pdf,.docx,text/plain,text/markdown,application/pdf,application/vnd.openxmlformats-officedocument.wordprocessingml.document";

export type JobView = ApiResponse<"getScopingJob">;

type Failure = { title: string; detail?: string };

const STATUS_TEXT: Record<JobView["status"], string> = {
  queued: "Queued: the planner starts in a moment…",
  processing: "Reading the document and planning the tasks…",
  completed: "Plan ready.",
  failed: SCOPING_TEXTS.process,
};

/**
 * The AI Project Scoping Agent (spec sections 2, 3, 7): drop or choose a
 * requirements document, watch its status (the result is asked for every
 * 3 s until completed or failed), read the plan as an order of work and a
 * task list, come back to earlier plans, and, for pool managers, open
 * chosen tasks as GitHub issues with bounties.
 */
export default function ScopingAgent(props: { signedIn: boolean; isPoolManager: boolean; initialJobId: string | null }) {
  const [job, setJob] = useState<JobView | null>(null);
  const [uploading, setUploading] = useState<string | null>(null);
  const [failure, setFailure] = useState<Failure | null>(null);
  const [dragging, setDragging] = useState(false);
  const [jobs, setJobs] = useState<JobSummary[] | null>(null);
  const input = useRef<HTMLInputElement>(null);

  useEffect(() => {
    if (props.signedIn) watchSession();
  }, [props.signedIn]);

  const fail = useCallback((next: Failure) => {
    setFailure(next);
    toast({ type: "error", title: next.title, message: next.detail ?? next.title });
  }, []);

  const loadJobs = useCallback(async () => {
    if (!props.signedIn) return;
    try {
      setJobs((await api("/api/ai-scoping/jobs")).jobs);
    } catch {
      setJobs([]);
    }
  }, [props.signedIn]);

  const show = useCallback((next: JobView) => {
    setJob(next);
    if (next.status === "failed") fail({ title: SCOPING_TEXTS.process, detail: next.error ?? undefined });
    if (next.status === "completed" || next.status === "failed") void loadJobs();
  }, [fail, loadJobs]);

  const open = useCallback(
    async (jobId: string) => {
      setFailure(null);
      try {
        show(await api(`/api/ai-scoping/results/${encodeURIComponent(jobId)}`));
        const url = new URL(window.location.href);
        url.searchParams.set("job", jobId);
        window.history.replaceState(null, "", url);
      } catch (err) {
        fail(err instanceof ApiRequestError ? { title: SCOPING_TEXTS.fetch, detail: err.message } : { title: SCOPING_TEXTS.unknown });
      }
    },
    [show, fail],
  );

  useEffect(() => {
    void loadJobs();
    if (props.signedIn && props.initialJobId) void open(props.initialJobId);
  }, [props.signedIn, props.initialJobId, loadJobs, open]);

  // The spec's poll: every 3 s until completed or failed.
  useEffect(() => {
    if (!job || job.status === "completed" || job.status === "failed") return;
    let cancelled = false;
    const timer = setTimeout(async () => {
      try {
        const next = await api(`/api/ai-scoping/results/${encodeURIComponent(job.jobId)}`);
        if (!cancelled) show(next);
      } catch (err) {
        if (!cancelled) fail(err instanceof ApiRequestError ? { title: SCOPING_TEXTS.fetch, detail: err.message } : { title: SCOPING_TEXTS.unknown });
      }
    }, SCOPING_POLL_MS);
    return () => {
      cancelled = true;
      clearTimeout(timer);
    };
  }, [job, show, fail]);

  const upload = async (file: File | undefined) => {
    if (!file || uploading) return;
    setFailure(null);
    if (!props.signedIn) return fail({ title: SCOPING_TEXTS.signIn });
    if (file.size > MAX_BYTES) return fail({ title: SCOPING_TEXTS.upload, detail: "The document is larger than 5 MB. Upload a smaller file or its text." });
    if (file.size === 0) return fail({ title: SCOPING_TEXTS.upload, detail: "The document is empty." });
    setUploading(file.name);
    setJob(null);
    try {
      if (!$csrfToken.get()) await loadSession();
      const form = new FormData();
      form.append("document", file);
      const created = await api("/api/ai-scoping/upload", { method: "POST", body: form });
      const url = new URL(window.location.href);
      url.searchParams.set("job", created.jobId);
      window.history.replaceState(null, "", url);
      show(created);
    } catch (err) {
      if (err instanceof ApiRequestError) fail({ title: err.status === 401 ? SCOPING_TEXTS.signIn : SCOPING_TEXTS.upload, detail: err.status === 401 ? undefined : err.message });
      else fail({ title: SCOPING_TEXTS.unknown });
    } finally {
      setUploading(null);
      if (input.current) input.current.value = "";
    }
  };

  const onDrop = (event: DragEvent) => {
    event.preventDefault();
    setDragging(false);
    void upload(event.dataTransfer.files[0]);
  };

  const working = uploading !== null || job?.status === "queued" || job?.status === "processing";
  const statusText = uploading ? `Uploading ${uploading}…` : job ? STATUS_TEXT[job.status] : null;

  return (
    <div className="grid grid-cols-1 gap-6 lg:grid-cols-[minmax(0,1fr)_18rem]">
      <div className="min-w-0 space-y-6">
        <section className={`${cardClass} p-5 sm:p-6`} aria-labelledby="scoping-upload-title">
          <h2 id="scoping-upload-title" className="text-lg font-semibold">Upload a requirements document</h2>
          <p className="mt-1 text-sm text-muted-foreground">Plain text, Markdown, PDF or Word (.docx), up to 5 MB. The file is read and not kept; the plan is kept for 30 days.</p>
          {!props.signedIn && (
            <div className="mt-4 flex flex-col gap-3 rounded-lg border border-amber-500/40 bg-amber-500/10 p-4 text-sm sm:flex-row sm:items-center sm:justify-between" data-scoping-signin>
              <p className="flex items-center gap-2 font-medium"><Icon name="lock" /> {SCOPING_TEXTS.signIn}</p>
              <ButtonLink href="/auth?returnTo=%2Fai-scoping-agent" size="sm"><Icon name="github" /> Sign in with GitHub</ButtonLink>
            </div>
          )}
          <label
            htmlFor="scoping-file"
            onDragOver={(event) => {
              event.preventDefault();
              if (props.signedIn) setDragging(true);
            }}
            onDragLeave={() => setDragging(false)}
            onDrop={onDrop}
            data-dropzone
            data-dragging={dragging || undefined}
            className={
              "mt-4 flex min-h-40 cursor-pointer flex-col items-center justify-center gap-2 rounded-xl border-2 border-dashed p-6 text-center transition-colors " +
              "focus-within:outline-2 focus-within:outline-ring " +
              (dragging ? "border-primary bg-primary/5" : "border-border hover:border-primary/60 hover:bg-muted/40") +
              (!props.signedIn || working ? " pointer-events-none opacity-60" : "")
            }
          >
            <Icon name="upload" className="h-8 w-8 text-primary" />
            <span className="font-medium">Drop a document here, or click to choose one</span>
            <span className="text-xs text-muted-foreground">.txt · .md · .pdf · .docx</span>
            <input
              ref={input}
              id="scoping-file"
              type="file"
              accept={ACCEPT}
              className="sr-only"
              disabled={!props.signedIn || working}
              onChange={(event) => void upload(event.target.files?.[0])}
            />
          </label>
          <div className="mt-4 min-h-6" aria-live="polite" data-scoping-status>
            {statusText && (
              <p className="flex items-center gap-2 text-sm">
                {working && <Spinner className="h-4 w-4" />}
                {job?.status === "completed" && !uploading && <Icon name="check" className="h-4 w-4 text-emerald-600 dark:text-emerald-400" />}
                <span>{statusText}</span>
                {job && !uploading && <span className="min-w-0 truncate text-muted-foreground">· {job.fileName}</span>}
              </p>
            )}
          </div>
          {failure && (
            <div role="alert" className="mt-3 rounded-lg border border-destructive/40 bg-destructive/10 p-3 text-sm" data-scoping-error>
              <p className="font-semibold">{failure.title}</p>
              {failure.detail && <p className="mt-1 text-muted-foreground">{failure.detail}</p>}
              {failure.title === SCOPING_TEXTS.fetch && job && (
                <Button size="sm" variant="outline" className="mt-2" onClick={() => void open(job.jobId)}>
                  <Icon name="refresh" /> Check again
                </Button>
              )}
            </div>
          )}
        </section>
        {job?.status === "completed" && job.result && <PlanView jobId={job.jobId} plan={job.result} isPoolManager={props.isPoolManager} planner={job.planner} fallback={job.fallback} />}
      </div>
      {props.signedIn && <EarlierPlans jobs={jobs} current={job?.jobId ?? null} onOpen={(id) => void open(id)} />}
    </div>
  );
}
