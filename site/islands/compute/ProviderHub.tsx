import { lazy, Suspense, useEffect, useRef, useState, type FormEvent } from "react";
import { errorMessage } from "../../lib/api.ts";
import { cardClass, badgeClass, inputClass } from "../../lib/ui.ts";
import { toast } from "../../stores/toast.ts";
import { COMPUTE_UNITS_FAILED_MESSAGE, FETCH_FAILED_MESSAGE, HUB_POLL_MS, formatPairingCode, isPairingCode, type NodeStatus } from "../../../lib/compute.ts";
import { approvePairing, computeUnits, findPairing, ownNodes, revokeNode, sinceText, startCommand, unitsWord, walletNodeStatus, type OwnNode, type Pairing } from "../../lib/compute-api.ts";
import { useResource } from "../repo-detail/use-resource.ts";
import { Button } from "../ui/button.tsx";
import { CopyButton } from "../ui/copy-button.tsx";
import { Icon } from "../ui/icon.tsx";
import { Spinner } from "../ui/spinner.tsx";

const RevokeDialog = lazy(() => import("./revoke-dialog.tsx"));

/**
 * The Provider Hub (spec: the command to start a node with the user's
 * wallet, node status Online or Offline, compute units; polled every 15 s):
 * start a node, approve its pairing code, watch and revoke your nodes.
 */
export default function ProviderHub({ walletAddress, serverUrl, initialCode }: { walletAddress: string; serverUrl: string; initialCode?: string }) {
  // Just after an approval the node appears within seconds (when the agent redeems its code): look every second until it does.
  const [awaiting, setAwaiting] = useState<{ known: number; until: number } | null>(null);
  const pollMs = awaiting ? 1000 : HUB_POLL_MS;
  const units = useResource("units", computeUnits, { intervalMs: HUB_POLL_MS });
  const status = useResource(`status:${walletAddress}`, () => walletNodeStatus(walletAddress), { intervalMs: pollMs });
  const nodes = useResource("nodes", ownNodes, { intervalMs: pollMs });
  useToastOnError(units.error, COMPUTE_UNITS_FAILED_MESSAGE);
  useToastOnError(status.error ?? nodes.error, FETCH_FAILED_MESSAGE);
  useEffect(() => {
    if (!awaiting) return;
    if ((nodes.data?.length ?? 0) > awaiting.known) {
      setAwaiting(null);
      // The status asked beside that list may predate the node (a CI run showed the row Online and the summary
      // Offline until the next 15 s poll): asked again now that the node is there.
      void status.reload();
    } else if (Date.now() > awaiting.until) setAwaiting(null);
  }, [awaiting, nodes.data]);
  const refresh = () => Promise.all([units.reload(), status.reload(), nodes.reload()]);
  const approved = () => {
    setAwaiting({ known: nodes.data?.length ?? 0, until: Date.now() + 30_000 });
    return refresh();
  };

  return (
    <div className="space-y-6">
      <section className="grid gap-4 sm:grid-cols-2" aria-label="Your compute summary">
        <div className={`${cardClass} p-5`}>
          <p className="text-sm font-medium text-muted-foreground">Node status</p>
          <div className="mt-2" data-node-status>
            {status.data ? <StatusBadge status={status.data} large /> : <span className="inline-block h-7 w-24 animate-pulse rounded bg-muted" />}
          </div>
        </div>
        <div className={`${cardClass} p-5`}>
          <p className="text-sm font-medium text-muted-foreground">Compute units</p>
          <p className="mt-1 text-3xl font-semibold tabular-nums" data-compute-units>
            {units.data !== undefined ? units.data.toLocaleString("en-US") : <span className="inline-block h-8 w-16 animate-pulse rounded bg-muted" />}
          </p>
          <p className="mt-1 text-xs text-muted-foreground">One unit per started 1,000 tokens of each answered chat task.</p>
        </div>
      </section>

      <StartNode serverUrl={serverUrl} walletAddress={walletAddress} />
      <ApproveNode initialCode={initialCode} onApproved={approved} />
      <NodeList nodes={nodes.data} loading={nodes.loading && !nodes.data} onRevoked={refresh} />
    </div>
  );
}

function useToastOnError(error: unknown, message: string) {
  const shown = useRef<unknown>(undefined);
  useEffect(() => {
    if (error && shown.current !== error) {
      shown.current = error;
      toast({ type: "error", message });
    }
  }, [error, message]);
}

function StatusBadge({ status, large = false }: { status: NodeStatus; large?: boolean }) {
  const online = status === "Online";
  return (
    <span className={`${badgeClass} gap-1.5 ${large ? "px-3 py-1 text-sm" : ""} ${online ? "border-success/40 bg-success/10 text-success" : "border-border bg-muted text-muted-foreground"}`}>
      <span aria-hidden="true" className={`h-2 w-2 rounded-full ${online ? "bg-success" : "bg-muted-foreground"}`} />
      {status}
    </span>
  );
}

function StartNode({ serverUrl, walletAddress }: { serverUrl: string; walletAddress: string }) {
  const demo = startCommand(serverUrl, walletAddress);
  const model = startCommand(serverUrl, walletAddress, { url: "http://127.0.0.1:52415/v1", model: "llama-3.2-3b" });
  return (
    <section className={`${cardClass} p-5 sm:p-6`} aria-labelledby="start-node-title">
      <h2 id="start-node-title" className="flex items-center gap-2 text-lg font-semibold">
        <Icon name="server" className="h-5 w-5 text-primary" /> Start a node
      </h2>
      <p className="mt-1 text-sm text-muted-foreground">
        In a clone of the Issuepool repository, after <code className="font-mono text-xs">npm install</code>, run this. The node only connects out to this site (it works behind a home router) and earns compute units for your wallet.
      </p>
      <CommandLine command={demo} label="Copy the start command" testId="start-command" />
      <p className="mt-4 text-sm text-muted-foreground">
        It answers with a built-in demo model. To lend a real model, point it at any OpenAI-compatible server you run (exo, llama.cpp's server, Ollama):
      </p>
      <CommandLine command={model} label="Copy the command with a model backend" testId="start-command-backend" />
      <p className="mt-4 text-sm text-muted-foreground">The node prints a pairing code such as ABCD-1234. Approve it below.</p>
    </section>
  );
}

function CommandLine({ command, label, testId }: { command: string; label: string; testId: string }) {
  return (
    <div className="mt-3 flex items-start gap-2 rounded-lg border border-border bg-muted p-2 pl-3">
      <code className="min-w-0 flex-1 break-all py-1.5 font-mono text-xs leading-relaxed" data-testid={testId}>
        {command}
      </code>
      <CopyButton value={command} label={label} />
    </div>
  );
}

function ApproveNode({ initialCode, onApproved }: { initialCode?: string; onApproved: () => Promise<unknown> }) {
  const [code, setCode] = useState(initialCode && isPairingCode(initialCode) ? formatPairingCode(initialCode) : "");
  const [pairing, setPairing] = useState<Pairing | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const find = async (value: string) => {
    setProblem(null);
    setPairing(null);
    if (!isPairingCode(value)) {
      setProblem("Enter the 8-character code the node printed, like ABCD-1234.");
      return;
    }
    setBusy(true);
    try {
      setPairing(await findPairing(formatPairingCode(value)));
    } catch (err) {
      setProblem(errorMessage(err, FETCH_FAILED_MESSAGE));
    } finally {
      setBusy(false);
    }
  };
  useEffect(() => {
    // Opened from the link the node printed (?code=ABCD-1234): show that node at once.
    if (initialCode && isPairingCode(initialCode)) void find(initialCode);
  }, []);

  const approve = async () => {
    if (!pairing) return;
    setBusy(true);
    try {
      await approvePairing(pairing.code);
      toast({ type: "success", title: "Node approved", message: `Node ${pairing.code} (${pairing.name}) is paired with your account. It will show up below in a moment.` });
      setPairing(null);
      setCode("");
      await onApproved();
    } catch (err) {
      setProblem(errorMessage(err, FETCH_FAILED_MESSAGE));
    } finally {
      setBusy(false);
    }
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    void find(code);
  };

  return (
    <section className={`${cardClass} p-5 sm:p-6`} aria-labelledby="approve-title">
      <h2 id="approve-title" className="flex items-center gap-2 text-lg font-semibold">
        <Icon name="key" className="h-5 w-5 text-primary" /> Approve a node
      </h2>
      <p className="mt-1 text-sm text-muted-foreground">Only approve a code that your own node printed: an approved node answers chat prompts and earns units for your wallet.</p>
      <form className="mt-3 flex flex-col gap-2 sm:flex-row" onSubmit={submit}>
        <label htmlFor="pairing-code" className="sr-only">
          Pairing code
        </label>
        <input
          id="pairing-code"
          className={`${inputClass} font-mono uppercase sm:max-w-48`}
          placeholder="ABCD-1234"
          autoComplete="off"
          spellCheck={false}
          maxLength={9}
          value={code}
          onChange={(e) => setCode(e.target.value)}
        />
        <Button type="submit" variant="outline" disabled={busy || !code.trim()}>
          {busy && !pairing ? <Spinner className="h-4 w-4" /> : null} Find node
        </Button>
      </form>
      {problem && (
        <p role="alert" className="mt-2 text-sm text-destructive">
          {problem}
        </p>
      )}
      {pairing && (
        <div className="mt-4 rounded-lg border border-primary/30 bg-primary/5 p-4" data-pairing={pairing.code}>
          <dl className="grid gap-x-6 gap-y-1 text-sm sm:grid-cols-2">
            <div className="flex gap-2"><dt className="text-muted-foreground">Name</dt><dd className="font-medium">{pairing.name}</dd></div>
            <div className="flex gap-2"><dt className="text-muted-foreground">Backend</dt><dd className="font-medium">{pairing.backend === "demo" ? "Demo" : `OpenAI-compatible${pairing.model ? ` (${pairing.model})` : ""}`}</dd></div>
            <div className="flex gap-2"><dt className="text-muted-foreground">Asked</dt><dd>{sinceText(pairing.createdAt)}</dd></div>
          </dl>
          <Button className="mt-3" onClick={() => void approve()} disabled={busy}>
            {busy ? <Spinner className="h-4 w-4" /> : <Icon name="check" />} Approve node {pairing.code}
          </Button>
        </div>
      )}
    </section>
  );
}

function NodeList({ nodes, loading, onRevoked }: { nodes: OwnNode[] | undefined; loading: boolean; onRevoked: () => Promise<unknown> }) {
  const [revoking, setRevoking] = useState<OwnNode | null>(null);
  const revokeLoaded = useRef(false);
  if (revoking) revokeLoaded.current = true;
  const [busy, setBusy] = useState(false);
  const revoke = async () => {
    if (!revoking) return;
    setBusy(true);
    try {
      await revokeNode(revoking.id);
      toast({ type: "success", title: "Node revoked", message: `${revoking.name} can no longer take tasks.` });
      setRevoking(null);
      await onRevoked();
    } catch (err) {
      toast({ type: "error", message: errorMessage(err, FETCH_FAILED_MESSAGE) });
    } finally {
      setBusy(false);
    }
  };
  return (
    <section className={`${cardClass} overflow-hidden`} aria-labelledby="nodes-title">
      <h2 id="nodes-title" className="border-b border-border px-5 py-4 text-lg font-semibold sm:px-6">
        Your nodes
      </h2>
      {loading ? (
        <div className="flex justify-center p-6 text-primary"><Spinner label="Loading your nodes" /></div>
      ) : !nodes?.length ? (
        <p className="px-5 py-6 text-sm text-muted-foreground sm:px-6">No nodes yet. Start one with the command above and approve its code.</p>
      ) : (
        <ul className="divide-y divide-border" aria-label="Your nodes">
          {nodes.map((node) => (
            <li key={node.id} className="flex flex-wrap items-center gap-x-4 gap-y-2 px-5 py-3 sm:px-6" data-node-id={node.id}>
              <div className="min-w-0 flex-1">
                <p className="flex flex-wrap items-center gap-2 font-medium">
                  <span className="truncate">{node.name}</span>
                  <StatusBadge status={node.status} />
                </p>
                <p className="text-xs text-muted-foreground">
                  <span className="font-mono">{node.id}</span> · {node.backend === "demo" ? "demo backend" : node.model ?? "OpenAI-compatible"} · last seen {sinceText(node.lastSeen)}
                </p>
              </div>
              <p className="text-sm tabular-nums" data-node-units>
                <span className="font-semibold">{node.computeUnits.toLocaleString("en-US")}</span> <span className="text-muted-foreground">{unitsWord(node.computeUnits)}</span>
              </p>
              <Button variant="outline" size="sm" onClick={() => setRevoking(node)} aria-label={`Revoke ${node.name} (${node.id})`}>
                Revoke
              </Button>
            </li>
          ))}
        </ul>
      )}
      {/* Loaded on the first Revoke, then kept (open or closed) so it can animate and hand focus back. */}
      {revokeLoaded.current && (
        <Suspense fallback={null}>
          <RevokeDialog node={revoking} busy={busy} onClose={() => setRevoking(null)} onRevoke={() => void revoke()} />
        </Suspense>
      )}
    </section>
  );
}
