import type { OwnNode } from "../../lib/compute-api.ts";
import { Button } from "../ui/button.tsx";
import { Dialog } from "../ui/dialog.tsx";
import { Spinner } from "../ui/spinner.tsx";

/**
 * "Revoke this node?": its own module, loaded when a Revoke button is first pressed, so the hub does not carry
 * the dialog library on every visit (issue 27: /provider-hub took 102 KB of JavaScript, over the 100 KB budget).
 */
export default function RevokeDialog(props: { node: OwnNode | null; busy: boolean; onClose: () => void; onRevoke: () => void }) {
  const { node, busy } = props;
  return (
    <Dialog
      open={node !== null}
      onOpenChange={(open) => !open && !busy && props.onClose()}
      title="Revoke this node?"
      description={node ? `${node.name} (${node.id}) stops taking tasks at once; its token no longer works. The units it earned stay yours.` : undefined}
      modalLocked={busy}
    >
      <div className="mt-5 flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
        <Button variant="outline" onClick={props.onClose} disabled={busy}>
          Cancel
        </Button>
        <Button variant="destructive" onClick={props.onRevoke} disabled={busy}>
          {busy && <Spinner className="h-4 w-4" />} Revoke node
        </Button>
      </div>
    </Dialog>
  );
}
