import { useEffect, useState, type FormEvent } from "react";
import { useStore } from "./ui/use-store.ts";
import { useHydrated } from "./ui/use-hydrated.ts";
import { $sessionReady, $user, watchSession, type SessionUser } from "../stores/session.ts";
import { toast } from "../stores/toast.ts";
import { api, ApiRequestError } from "../lib/api.ts";
import { afterRegistration, githubSignInUrl, SIGN_IN_ERRORS, vscodeReturnTarget } from "../lib/auth-flow.ts";
import { cardClass, inputClass } from "../lib/ui.ts";
import { Button, ButtonLink } from "./ui/button.tsx";
import { Icon } from "./ui/icon.tsx";
import { PageSpinner, Spinner } from "./ui/spinner.tsx";
import { CopyButton } from "./ui/copy-button.tsx";

export interface AuthPanelProps {
  returnTo: string;
  source: "vscode" | null;
  fromVscode: boolean;
  error: string | null;
  /** /register/pool-manager and /register/contributor fix the role. */
  fixedRole?: "contributor" | "poolmanager";
}

/**
 * /auth and /auth/signin (spec section 2): loading; the VS Code sign-in card;
 * the GitHub button; role choice and Complete Registration; and Registration
 * complete with the wallet address and Continue to App.
 */
export default function AuthPanel(props: AuthPanelProps) {
  const user = useStore($user, null);
  const ready = useStore($sessionReady, false);
  // The server renders the loading state; the session may already be known when this hydrates (the header loads
  // it first), so the first client render must match the server's and the real state follows after mounting.
  const hydrated = useHydrated();
  useEffect(() => watchSession(), []);

  useEffect(() => {
    if (ready && !user && props.fromVscode) location.replace(vscodeReturnTarget());
  }, [ready, user, props.fromVscode]);

  if (!hydrated || !ready || (!user && props.fromVscode)) return <PageSpinner label="Loading your account" />;

  return (
    <div className="mx-auto w-full max-w-md">
      {props.error && (
        <p role="alert" className="mb-4 rounded-lg border border-destructive/40 bg-destructive/10 px-4 py-3 text-sm text-destructive">
          {SIGN_IN_ERRORS[props.error] ?? "Sign-in failed. Please try again."}
        </p>
      )}
      {!user ? (
        props.source === "vscode" ? <VscodeSignIn returnTo={props.returnTo} /> : <GitHubSignIn returnTo={props.returnTo} />
      ) : !user.isProfileComplete ? (
        <Registration user={user} source={props.source} returnTo={props.returnTo} fixedRole={props.fixedRole} />
      ) : (
        <RegistrationComplete user={user} source={props.source} returnTo={props.returnTo} />
      )}
    </div>
  );
}

function GitHubSignIn({ returnTo }: { returnTo: string }) {
  return (
    <section className={`${cardClass} p-8 text-center`} aria-labelledby="signin-title">
      <h1 id="signin-title" className="text-2xl font-bold tracking-tight">Sign in to Issuepool</h1>
      <p className="mt-2 text-sm text-muted-foreground">
        Fund repositories, set bounties and get paid for merged fixes. We only read your public profile and e-mail.
      </p>
      <ButtonLink href={githubSignInUrl({ returnTo })} size="lg" className="mt-6 w-full">
        <Icon name="github" className="h-5 w-5" /> Sign in with GitHub
      </ButtonLink>
    </section>
  );
}

function VscodeSignIn({ returnTo }: { returnTo: string }) {
  return (
    <section className={`${cardClass} p-8 text-center`} aria-labelledby="vscode-title">
      <p className="text-sm font-semibold text-primary">VS Code</p>
      <h1 id="vscode-title" className="mt-1 text-2xl font-bold tracking-tight">Sign in for VS Code</h1>
      <p className="mt-2 text-sm text-muted-foreground">
        Connect the Issuepool extension to your account. When you are done, your browser hands you back to VS Code.
      </p>
      <ButtonLink href={githubSignInUrl({ returnTo, source: "vscode" })} size="lg" className="mt-6 w-full">
        <Icon name="github" className="h-5 w-5" /> Continue with GitHub
      </ButtonLink>
    </section>
  );
}

const ROLE_CHOICES = [
  { value: "contributor", title: "Contributor", text: "Solve funded issues and get paid in XDC, ROXN or USDC." },
  { value: "poolmanager", title: "Pool Manager", text: "Fund your repositories and put bounties on issues. Requires admin rights on GitHub." },
] as const;

function Registration(props: { user: SessionUser; source: "vscode" | null; returnTo: string; fixedRole?: "contributor" | "poolmanager" }) {
  const [role, setRole] = useState<"contributor" | "poolmanager">(props.fixedRole ?? "contributor");
  const [email, setEmail] = useState(props.user.email ?? "");
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!email || busy) return;
    setBusy(true);
    try {
      const { user } = await api("/api/auth/register", { method: "POST", body: { role, email } });
      $user.set(user);
      if (props.source === "vscode") location.assign(afterRegistration("vscode", props.returnTo));
    } catch (err) {
      toast({ type: "error", ...registrationErrorToast(err) });
    } finally {
      setBusy(false);
    }
  };

  return (
    <form onSubmit={submit} className={`${cardClass} p-8`} aria-labelledby="register-title">
      <h1 id="register-title" className="text-2xl font-bold tracking-tight">Complete your registration</h1>
      <p className="mt-2 text-sm text-muted-foreground">
        Signed in as <span className="font-medium text-foreground">@{props.user.githubUsername}</span>. Choose how you will use Issuepool; we create
        your XDC wallet now.
      </p>
      <fieldset className="mt-6" disabled={busy}>
        <legend className="text-sm font-medium">Your role</legend>
        <div className="mt-2 grid gap-2">
          {ROLE_CHOICES.filter((c) => !props.fixedRole || c.value === props.fixedRole).map((choice) => (
            <label
              key={choice.value}
              className="flex cursor-pointer gap-3 rounded-lg border border-border p-3 has-[:checked]:border-primary has-[:checked]:bg-primary/5"
            >
              <input
                type="radio"
                name="role"
                value={choice.value}
                checked={role === choice.value}
                onChange={() => setRole(choice.value)}
                className="mt-1 accent-[var(--color-primary)]"
              />
              <span>
                <span className="block text-sm font-semibold">{choice.title}</span>
                <span className="block text-sm text-muted-foreground">{choice.text}</span>
              </span>
            </label>
          ))}
        </div>
      </fieldset>
      <label className="mt-5 block text-sm font-medium" htmlFor="register-email">
        E-mail
      </label>
      <input
        id="register-email"
        type="email"
        required
        autoComplete="email"
        value={email}
        onChange={(e) => setEmail(e.target.value.trim())}
        className={`${inputClass} mt-1.5`}
        placeholder="you@example.com"
        disabled={busy}
      />
      <p className="mt-1.5 text-xs text-muted-foreground">For wallet security codes and payout notices.</p>
      <Button type="submit" size="lg" className="mt-6 w-full" disabled={!email || busy}>
        {busy ? (
          <>
            <Spinner className="h-4 w-4" /> Creating XDC wallet...
          </>
        ) : (
          "Complete Registration"
        )}
      </Button>
    </form>
  );
}

/** The spec's three registration toasts (section 8). */
export function registrationErrorToast(err: unknown): { title: string; message: string } {
  if (err instanceof ApiRequestError && err.status === 409) {
    return { title: "Registration Error", message: "User already has a wallet address registered." };
  }
  if (err instanceof ApiRequestError && err.serverCode === "BLOCKCHAIN_REGISTRATION_FAILED") {
    return { title: "Blockchain Registration Error", message: "Failed to register on the blockchain. Please try again." };
  }
  if (err instanceof ApiRequestError && err.status === 400) return { title: "Registration Failed", message: err.message };
  return { title: "Registration Failed", message: "There was an error during registration. Please try again later." };
}

function RegistrationComplete({ user, source, returnTo }: { user: SessionUser; source: "vscode" | null; returnTo: string }) {
  return (
    <section className={`${cardClass} p-8 text-center`} aria-labelledby="done-title">
      <span className="mx-auto flex h-12 w-12 items-center justify-center rounded-full bg-success/15 text-success">
        <Icon name="check" className="h-6 w-6" />
      </span>
      <h1 id="done-title" className="mt-4 text-2xl font-bold tracking-tight">Registration complete</h1>
      <p className="mt-2 text-sm text-muted-foreground">
        You are registered as {user.role === "poolmanager" ? "a pool manager" : "a contributor"}. Your XDC wallet:
      </p>
      {user.xdcWalletAddress ? (
        <div className="mt-3 flex items-center justify-center gap-2 rounded-lg bg-muted px-3 py-2">
          <code className="break-all font-mono text-xs" data-wallet-address-full>
            {user.xdcWalletAddress}
          </code>
          <CopyButton value={user.xdcWalletAddress} label="Copy wallet address" />
        </div>
      ) : (
        <p className="mt-3 text-sm">No wallet is connected. Please check your profile settings.</p>
      )}
      <ButtonLink href={afterRegistration(source, returnTo)} size="lg" className="mt-6 w-full">
        Continue to App
      </ButtonLink>
    </section>
  );
}
