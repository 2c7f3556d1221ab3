import { cardClass } from "../../lib/ui.ts";
import { Icon } from "../ui/icon.tsx";
import { Spinner } from "../ui/spinner.tsx";

export interface JobSummary {
  jobId: string;
  status: "queued" | "processing" | "completed" | "failed";
  fileName: string;
  projectName: string | null;
  createdAt: string;
}

/** When it was made, to the minute, in the reader's time zone: three uploads of one day must be told apart (issue 27, item 5). */
function madeAt(iso: string): string {
  return new Date(iso).toLocaleString(undefined, { year: "numeric", month: "short", day: "numeric", hour: "2-digit", minute: "2-digit" });
}

const STATUS_LABEL: Record<JobSummary["status"], string> = { queued: "Queued", processing: "Planning", completed: "Ready", failed: "Failed" };

/** The signed-in user's earlier plans, newest first; each opens in place (and its link can be kept). */
export function EarlierPlans(props: { jobs: JobSummary[] | null; current: string | null; onOpen: (jobId: string) => void }) {
  return (
    <aside className={`${cardClass} h-fit p-5`} aria-labelledby="earlier-plans-title" data-earlier-plans>
      <h2 id="earlier-plans-title" className="font-semibold">Your earlier plans</h2>
      {props.jobs === null ? (
        <p className="mt-3 flex items-center gap-2 text-sm text-muted-foreground"><Spinner className="h-4 w-4" /> Loading…</p>
      ) : props.jobs.length === 0 ? (
        <p className="mt-3 text-sm text-muted-foreground">None yet. Plans you make appear here for 30 days.</p>
      ) : (
        <ul className="mt-3 space-y-1">
          {props.jobs.map((job) => (
            <li key={job.jobId}>
              <a
                href={`/ai-scoping-agent?job=${job.jobId}`}
                onClick={(event) => {
                  event.preventDefault();
                  props.onOpen(job.jobId);
                }}
                aria-current={job.jobId === props.current ? "page" : undefined}
                className="flex items-start gap-2 rounded-lg px-2 py-2 text-sm hover:bg-muted aria-[current=page]:bg-muted"
              >
                <Icon name="fileText" className="mt-0.5 h-4 w-4 shrink-0 text-muted-foreground" />
                <span className="min-w-0 flex-1">
                  <span className="block break-words font-medium" data-earlier-title>{job.projectName ?? job.fileName}</span>
                  <span className="block truncate text-xs text-muted-foreground" data-earlier-meta>
                    {STATUS_LABEL[job.status]} · <time dateTime={job.createdAt}>{madeAt(job.createdAt)}</time>
                    {job.projectName && <> · <span title={job.fileName}>{job.fileName}</span></>}
                  </span>
                </span>
              </a>
            </li>
          ))}
        </ul>
      )}
    </aside>
  );
}
