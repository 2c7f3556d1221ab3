import { useCallback, useEffect, useRef, useState } from "react";
import { api, ApiRequestError, errorMessage } from "../../lib/api.ts";
import { configureMetaMask, MetaMaskError, type NetworkConfig } from "../../lib/wallet-metamask.ts";
import { OtpInput } from "../ui/otp-input.tsx";
import { Button } from "../ui/button.tsx";
import { Icon } from "../ui/icon.tsx";
import { Spinner } from "../ui/spinner.tsx";
import { InlineAlert, WalletDialog } from "./WalletDialog.tsx";

/** How long the exported key stays on screen (spec section 9). */
export const KEY_VISIBLE_MS = 60_000;
const COPIED_MARK_MS = 2000;

class InvalidResponse extends Error {}

type Problem = { title?: string; message: string } | null;

/**
 * 'Export to MetaMask' (spec sections 4, 7 and 8): send a one-time code,
 * enter it, export. The key arrives encrypted to a key pair made in this
 * browser for this export, is decrypted here, shown for 60 seconds with a
 * countdown, then hidden and dropped from memory; copying after that is
 * refused. 'Configure MetaMask' adds or switches MetaMask to the network.
 */
export function ExportDialog({ address, open, onOpenChange: changeOpen }: { address: string; open: boolean; onOpenChange: (open: boolean) => void }) {
  const [sending, setSending] = useState(false);
  const [codeSent, setCodeSent] = useState<string | null>(null);
  const [otp, setOtp] = useState("");
  const [exporting, setExporting] = useState(false);
  const [problem, setProblem] = useState<Problem>(null);
  // The key lives in a ref (no copies in React's state history) and is shown from there.
  const keyRef = useRef<string | null>(null);
  const [keyShown, setKeyShown] = useState(false);
  const [derivedAddress, setDerivedAddress] = useState<string | null>(null);
  const [expiresAt, setExpiresAt] = useState<number | null>(null);
  const [secondsLeft, setSecondsLeft] = useState(0);
  const [expired, setExpired] = useState(false);
  const [copied, setCopied] = useState(false);
  const [networkConfig, setNetworkConfig] = useState<NetworkConfig | null>(null);
  const [configuring, setConfiguring] = useState(false);
  const [configured, setConfigured] = useState(false);

  const wipeKey = useCallback((becauseExpired: boolean) => {
    keyRef.current = null;
    setKeyShown(false);
    setExpiresAt(null);
    setCopied(false);
    if (becauseExpired) setExpired(true);
  }, []);

  useEffect(() => {
    if (expiresAt === null) return;
    const tick = () => {
      const left = Math.max(0, Math.ceil((expiresAt - Date.now()) / 1000));
      setSecondsLeft(left);
      if (left === 0) wipeKey(true);
    };
    tick();
    const timer = setInterval(tick, 250);
    return () => clearInterval(timer);
  }, [expiresAt, wipeKey]);

  useEffect(() => {
    if (!copied) return;
    const timer = setTimeout(() => setCopied(false), COPIED_MARK_MS);
    return () => clearTimeout(timer);
  }, [copied]);

  const onOpenChange = (next: boolean) => {
    changeOpen(next);
    if (!next) {
      // Closing forgets everything, the key first.
      wipeKey(false);
      setExpired(false);
      setCodeSent(null);
      setOtp("");
      setProblem(null);
      setDerivedAddress(null);
      setNetworkConfig(null);
      setConfigured(false);
    }
  };

  const sendCode = async () => {
    setSending(true);
    setProblem(null);
    try {
      const { message } = await api("/api/wallet/export-request", { method: "POST" });
      setCodeSent(message || "We sent a 6-digit code to your e-mail address.");
    } catch (err) {
      // The server's title says what happened: the spec's 'Failed to send OTP', or a limit ('Too many codes requested').
      const message = errorMessage(err, "Failed to send OTP");
      const title = err instanceof ApiRequestError && err.title ? err.title : "Failed to send OTP";
      setProblem(message === title ? { message } : { title, message });
    } finally {
      setSending(false);
    }
  };

  const exportKey = async () => {
    if (!otp.trim() || exporting) return;
    setExporting(true);
    setProblem(null);
    try {
      const { createEphemeralKey, isEncryptedExport, addressOfKey } = await import("../../lib/export-crypto.ts");
      const ephemeral = await createEphemeralKey();
      const data = await api("/api/wallet/export-data", { method: "POST", body: { ephemeralPublicKey: ephemeral.publicKey, otp: otp.trim() } });
      if (!isEncryptedExport(data)) throw new InvalidResponse();
      let key: string;
      try {
        key = await ephemeral.decrypt(data);
      } catch {
        throw new InvalidResponse();
      }
      const derived = addressOfKey(key);
      if (!derived) throw new InvalidResponse();
      keyRef.current = key;
      setKeyShown(true);
      setDerivedAddress(derived);
      setExpired(false);
      setExpiresAt(Date.now() + KEY_VISIBLE_MS);
      setNetworkConfig((data as { networkConfig?: NetworkConfig }).networkConfig ?? null);
      setOtp("");
    } catch (err) {
      setProblem({ title: "Export failed", message: err instanceof InvalidResponse ? "Invalid response from server" : errorMessage(err, "Failed to export wallet data") });
    } finally {
      setExporting(false);
    }
  };

  const copyKey = async () => {
    setProblem(null);
    if (expired) return setProblem({ title: "Copy refused", message: "Private key has expired. Please export again." });
    const key = keyRef.current;
    if (!key) return setProblem({ title: "Copy refused", message: "No private key available to copy" });
    try {
      await navigator.clipboard.writeText(key);
      setCopied(true);
    } catch {
      setProblem({ title: "Copy failed", message: "Failed to copy to clipboard..." });
    }
  };

  const setUpMetaMask = async () => {
    setConfiguring(true);
    setProblem(null);
    try {
      await configureMetaMask(networkConfig);
      setConfigured(true);
    } catch (err) {
      setProblem({ title: "MetaMask", message: err instanceof MetaMaskError ? err.message : "Failed to switch network" });
    } finally {
      setConfiguring(false);
    }
  };

  const exported = keyShown || expired;
  const matches = derivedAddress !== null && derivedAddress.toLowerCase() === address.toLowerCase();

  return (
    <>
      <WalletDialog
        open={open}
        onOpenChange={onOpenChange}
        modalLocked={exporting || keyShown}
        title="Export to MetaMask"
        description="Your wallet's private key, to import into MetaMask. Anyone who has it controls this wallet's funds: never share it."
      >
        {!exported ? (
          <div className="grid gap-5">
            <section className="grid gap-2" aria-labelledby="export-step-1">
              <h3 id="export-step-1" className="text-sm font-semibold">1. Get a one-time code by e-mail</h3>
              <div>
                <Button variant={codeSent ? "outline" : "default"} onClick={sendCode} disabled={sending}>
                  {sending ? <Spinner className="h-4 w-4" /> : <Icon name="mail" />} {codeSent ? "Send a new code" : "Send code"}
                </Button>
              </div>
              {codeSent && <InlineAlert tone="success" message={`${codeSent} It is valid for 10 minutes.`} />}
            </section>
            <form
              className="grid gap-2"
              onSubmit={(event) => {
                event.preventDefault();
                void exportKey();
              }}
            >
              <label htmlFor="export-otp" className="text-sm font-semibold">
                2. Enter the code
              </label>
              <div className="flex flex-col gap-2 sm:flex-row">
                <OtpInput id="export-otp" value={otp} onChange={setOtp} describedBy="export-otp-hint" />
                <Button type="submit" disabled={!otp.trim() || exporting}>
                  {exporting ? <Spinner className="h-4 w-4" /> : <Icon name="lock" />} Export
                </Button>
              </div>
              <p id="export-otp-hint" className="text-xs text-muted-foreground">
                Five wrong codes lock it; then ask for a new one.
              </p>
            </form>
          </div>
        ) : (
          <div className="grid gap-4">
            {keyShown ? (
              <div className="grid gap-2">
                <div className="flex items-center justify-between gap-2">
                  <span className="text-sm font-semibold" id="exported-key-label">
                    Private key
                  </span>
                  <span className="inline-flex items-center gap-1 text-xs font-medium text-warning" role="timer" aria-live="off" data-key-countdown>
                    <Icon name="clock" className="h-3.5 w-3.5" /> Hidden in {secondsLeft} s
                  </span>
                </div>
                <code
                  aria-labelledby="exported-key-label"
                  className="block select-all break-all rounded-lg border border-warning/40 bg-warning/10 px-3 py-2 font-mono text-sm"
                  data-exported-key
                >
                  {keyRef.current}
                </code>
              </div>
            ) : (
              <InlineAlert tone="info" title="Key hidden" message="Private key has expired. Please export again." />
            )}
            {derivedAddress && (
              <p className={`flex items-start gap-2 text-sm ${matches ? "" : "text-destructive"}`} data-derived-address={derivedAddress}>
                <Icon name={matches ? "check" : "alert"} className={`mt-0.5 h-4 w-4 shrink-0 ${matches ? "text-success" : ""}`} />
                <span>
                  {matches ? "Checked in this browser: this key controls your wallet " : "This key does not control your wallet "}
                  <span className="break-all font-mono text-xs">{derivedAddress}</span>.
                </span>
              </p>
            )}
            <div className="flex flex-wrap gap-2">
              <Button variant="outline" onClick={copyKey} aria-label={copied ? "Copied" : "Copy private key"}>
                <Icon name={copied ? "check" : "copy"} className={copied ? "h-4 w-4 text-success" : "h-4 w-4"} /> {copied ? "Copied" : "Copy private key"}
              </Button>
              <Button variant={configured ? "outline" : "default"} onClick={setUpMetaMask} disabled={configuring}>
                {configuring ? <Spinner className="h-4 w-4" /> : <Icon name={configured ? "check" : "wallet"} />} {configured ? "MetaMask configured" : "Configure MetaMask"}
              </Button>
            </div>
            <p className="text-xs text-muted-foreground">
              In MetaMask choose <span className="font-medium text-foreground">Add account → Import account</span> and paste the key. Issuepool still
              holds the key too: spending from MetaMask and Issuepool at the same moment can make one of the two transactions fail.
            </p>
            {expired && (
              <Button variant="ghost" onClick={() => setExpired(false)}>
                <Icon name="refresh" /> Export again
              </Button>
            )}
          </div>
        )}
        {problem && <InlineAlert title={problem.title} message={problem.message} />}
      </WalletDialog>
    </>
  );
}
