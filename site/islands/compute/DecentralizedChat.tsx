import { useEffect, useRef, useState, type FormEvent, type KeyboardEvent } from "react";
import { ApiRequestError } from "../../lib/api.ts";
import { cardClass, inputClass } from "../../lib/ui.ts";
import { toast } from "../../stores/toast.ts";
import { CHAT_POLL_MS, FETCH_FAILED_MESSAGE, MAX_PROMPT_CHARS, NETWORK_FAILED_MESSAGE } from "../../../lib/compute.ts";
import { dispatchTask, networkNodes } from "../../lib/compute-api.ts";
import { useResource } from "../repo-detail/use-resource.ts";
import { Button } from "../ui/button.tsx";
import { Icon } from "../ui/icon.tsx";
import { Spinner } from "../ui/spinner.tsx";

interface Message {
  id: number;
  role: "user" | "node";
  text: string;
}

/**
 * The decentralized AI chat (spec: network status card "nodes online out of
 * total", chat box, Send button, Enter sends, an empty prompt sends nothing;
 * polled every 10 s). Signed out, the page shows the sign-in text instead of
 * the chat box; the network card is public.
 */
export default function DecentralizedChat({ signedIn }: { signedIn: boolean }) {
  return (
    <div className="flex flex-col gap-4">
      <NetworkCard />
      {signedIn ? <Conversation /> : null}
    </div>
  );
}

function NetworkCard() {
  const nodes = useResource("nodes", networkNodes, { intervalMs: CHAT_POLL_MS });
  const reported = useRef<unknown>(undefined);
  useEffect(() => {
    if (nodes.error && reported.current !== nodes.error) {
      reported.current = nodes.error;
      toast({ type: "error", message: FETCH_FAILED_MESSAGE });
    }
  }, [nodes.error]);
  const online = nodes.data?.filter((n) => n.status === "Online").length ?? 0;
  const total = nodes.data?.length ?? 0;
  return (
    <section className={`${cardClass} flex flex-wrap items-center justify-between gap-3 p-4 sm:p-5`} aria-labelledby="network-title">
      <div className="flex items-center gap-3">
        <span className={`flex h-10 w-10 items-center justify-center rounded-full ${online ? "bg-success/10 text-success" : "bg-muted text-muted-foreground"}`}>
          <Icon name="server" className="h-5 w-5" />
        </span>
        <div>
          <h2 id="network-title" className="text-sm font-medium text-muted-foreground">
            Network status
          </h2>
          <p className="text-lg font-semibold tabular-nums" data-network-status aria-live="polite">
            {nodes.data ? `${online} / ${total} online` : <span className="inline-block h-6 w-24 animate-pulse rounded bg-muted" />}
          </p>
        </div>
      </div>
      <p className="max-w-sm text-xs text-muted-foreground">
        Nodes run by the community answer your prompts. <a className="text-primary underline underline-offset-2" href="/provider-hub">Run a node</a> to earn compute units.
      </p>
    </section>
  );
}

function Conversation() {
  const [messages, setMessages] = useState<Message[]>([]);
  const [prompt, setPrompt] = useState("");
  const [sending, setSending] = useState(false);
  const nextId = useRef(1);
  const end = useRef<HTMLDivElement>(null);
  useEffect(() => {
    // A block body: newer Chromium returns a promise from scrollIntoView, which React would take for a cleanup.
    end.current?.scrollIntoView?.({ block: "nearest" });
  }, [messages, sending]);

  const send = async () => {
    const text = prompt.trim();
    // Spec section 5: the chat ignores an empty prompt (and one already on its way).
    if (!text || sending) return;
    setMessages((m) => [...m, { id: nextId.current++, role: "user", text }]);
    setPrompt("");
    setSending(true);
    try {
      const { message } = await dispatchTask(text);
      setMessages((m) => [...m, { id: nextId.current++, role: "node", text: message }]);
    } catch (err) {
      // A limit or a refused prompt says why; everything else is the spec's one sentence.
      const said = err instanceof ApiRequestError && (err.status === 429 || err.status === 400) ? err.message : NETWORK_FAILED_MESSAGE;
      toast({ type: "error", message: said });
    } finally {
      setSending(false);
    }
  };

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === "Enter" && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      void send();
    }
  };
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    void send();
  };

  return (
    <section className={`${cardClass} flex min-h-[24rem] flex-col`} aria-labelledby="chat-title">
      <h2 id="chat-title" className="sr-only">
        Conversation
      </h2>
      <div className="flex-1 space-y-3 overflow-y-auto p-4 sm:p-5" role="log" aria-live="polite" aria-label="Conversation" data-conversation>
        {messages.length === 0 && !sending && <p className="py-10 text-center text-sm text-muted-foreground">Ask anything. A node of the network answers.</p>}
        {messages.map((m) => (
          <div key={m.id} className={`flex ${m.role === "user" ? "justify-end" : "justify-start"}`}>
            <p
              className={`max-w-[85%] whitespace-pre-wrap break-words rounded-2xl px-4 py-2 text-sm ${m.role === "user" ? "bg-primary text-primary-foreground" : "bg-muted text-foreground"}`}
              data-message={m.role}
            >
              <span className="sr-only">{m.role === "user" ? "You: " : "Node: "}</span>
              {m.text}
            </p>
          </div>
        ))}
        {sending && (
          <div className="flex items-center gap-2 text-sm text-muted-foreground">
            <Spinner className="h-4 w-4" /> Waiting for a node…
          </div>
        )}
        <div ref={end} />
      </div>
      <form className="flex items-end gap-2 border-t border-border p-3 sm:p-4" onSubmit={onSubmit}>
        <label htmlFor="chat-prompt" className="sr-only">
          Your message
        </label>
        <textarea
          id="chat-prompt"
          rows={2}
          className={`${inputClass} h-auto min-h-10 resize-none`}
          placeholder="Type a message… (Enter sends, Shift+Enter for a new line)"
          maxLength={MAX_PROMPT_CHARS}
          value={prompt}
          onChange={(e) => setPrompt(e.target.value)}
          onKeyDown={onKeyDown}
        />
        <Button type="submit" disabled={sending} aria-label="Send">
          <Icon name="send" /> <span className="hidden sm:inline">Send</span>
        </Button>
      </form>
    </section>
  );
}
