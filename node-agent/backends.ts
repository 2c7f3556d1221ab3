/**
 * Where a node's answers come from. A backend takes a prompt and returns the
 * answer's text; it is told to give up through the signal (the agent is
 * stopping, or the task's lease is gone).
 *
 * - openai: any OpenAI-compatible Chat Completions server: exo
 *   (http://127.0.0.1:52415/v1), llama.cpp's llama-server (…:8080/v1),
 *   Ollama (…:11434/v1), vLLM, or a hosted API with a key.
 * - demo: a built-in, deterministic stand-in for a model, for the embedded
 *   default, tests and benchmarks: the same prompt always gets the same
 *   answer, and `workRounds` rounds of SHA-256 stand for the CPU a model
 *   would spend (so throughput figures mean something).
 */
import { createHash } from "node:crypto";

export interface Backend {
  kind: "demo" | "openai";
  model?: string;
  complete(prompt: string, signal: AbortSignal): Promise<string>;
}

export class BackendError extends Error {
  override name = "BackendError";
}

/** The demo backend's answer to `prompt`: the same every time, on every node. */
export function demoAnswer(prompt: string): string {
  const text = prompt.trim();
  const words = text ? text.split(/\s+/).length : 0;
  const digest = createHash("sha256").update(text).digest("hex").slice(0, 12);
  const quoted = text.length > 120 ? `${text.slice(0, 117)}...` : text;
  return `Demo node answer: you asked "${quoted}" (${words} ${words === 1 ? "word" : "words"}, fingerprint ${digest}). This node runs the built-in demo backend; start a node with --backend to answer with a real model.`;
}

export function demoBackend(options: { workRounds?: number } = {}): Backend {
  const rounds = options.workRounds ?? 0;
  return {
    kind: "demo",
    async complete(prompt, signal) {
      if (signal.aborted) throw new BackendError("aborted");
      let digest = Buffer.from(prompt);
      for (let i = 0; i < rounds; i++) digest = createHash("sha256").update(digest).digest();
      return demoAnswer(prompt);
    },
  };
}

export function openAiBackend(options: { baseUrl: string; model: string; apiKey?: string; timeoutMs?: number; maxTokens?: number }): Backend {
  const url = `${options.baseUrl.replace(/\/+$/, "")}/chat/completions`;
  const timeoutMs = options.timeoutMs ?? 120_000;
  return {
    kind: "openai",
    model: options.model,
    async complete(prompt, signal) {
      const headers: Record<string, string> = { "content-type": "application/json", accept: "application/json" };
      if (options.apiKey) headers.authorization = `Bearer ${options.apiKey}`;
      let res: Response;
      try {
        res = await fetch(url, {
          method: "POST",
          headers,
          body: JSON.stringify({
            model: options.model,
            messages: [{ role: "user", content: prompt }],
            stream: false,
            ...(options.maxTokens ? { max_tokens: options.maxTokens } : {}),
          }),
          signal: AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]),
        });
      } catch (err) {
        throw new BackendError(`the backend at ${options.baseUrl} did not answer (${(err as Error).name === "TimeoutError" ? `timeout after ${timeoutMs} ms` : (err as Error).message})`);
      }
      const text = await res.text();
      if (!res.ok) throw new BackendError(`the backend answered ${res.status}: ${text.slice(0, 200)}`);
      let content: unknown;
      try {
        content = (JSON.parse(text) as { choices?: { message?: { content?: unknown } }[] }).choices?.[0]?.message?.content;
      } catch {
        throw new BackendError("the backend's answer is not JSON");
      }
      if (typeof content !== "string" || !content.trim()) throw new BackendError("the backend's answer has no message content");
      return content;
    },
  };
}
