import type { Server } from "bun";

/**
 * A local server speaking OpenAI's Chat Completions protocol (POST
 * /v1/chat/completions), for testing the OpenAI-compatible clients without a
 * model: each request is recorded and answered by the test's `answer`
 * function, which may return a completion's content, an HTTP error, or hang
 * until the client gives up.
 */
export interface ChatRequest {
  model: string;
  messages: { role: string; content: string }[];
  response_format?: { type: string; json_schema?: { name: string; strict?: boolean; schema: Record<string, unknown> } };
  temperature?: number;
  stream?: boolean;
  max_tokens?: number;
}

export type StubAnswer = { content: string } | { status: number; body?: string } | "hang";

export interface OpenAiStub {
  /** e.g. http://127.0.0.1:PORT/v1 (what AI_BASE_URL or --backend takes). */
  baseUrl: string;
  requests: { body: ChatRequest; authorization: string | null }[];
  /** How the next requests are answered (the default echoes a fixed text). */
  answer: (request: ChatRequest, index: number) => StubAnswer | Promise<StubAnswer>;
  /** Resolves when `n` requests have arrived. */
  received(n: number): Promise<void>;
  stop(): Promise<void>;
}

export function startOpenAiStub(answer?: OpenAiStub["answer"]): OpenAiStub {
  const waiters: { n: number; resolve: () => void }[] = [];
  const hanging = new Set<() => void>();
  const stub: OpenAiStub = {
    baseUrl: "",
    requests: [],
    answer: answer ?? (() => ({ content: "stub answer" })),
    received(n) {
      if (stub.requests.length >= n) return Promise.resolve();
      return new Promise((resolve) => waiters.push({ n, resolve }));
    },
    async stop() {
      for (const release of hanging) release();
      await server.stop(true);
    },
  };
  const server: Server<unknown> = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 0,
    async fetch(request) {
      const url = new URL(request.url);
      if (request.method !== "POST" || url.pathname !== "/v1/chat/completions") return Response.json({ error: { message: "not found" } }, { status: 404 });
      const body = (await request.json()) as ChatRequest;
      const index = stub.requests.push({ body, authorization: request.headers.get("authorization") }) - 1;
      for (const w of waiters.filter((w) => stub.requests.length >= w.n)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
      const result = await stub.answer(body, index);
      if (result === "hang") {
        // Held open until the client aborts (or the stub stops).
        await new Promise<void>((resolve) => {
          hanging.add(resolve);
          request.signal.addEventListener("abort", () => resolve());
        });
        return new Response(null, { status: 499 });
      }
      if ("status" in result) return new Response(result.body ?? JSON.stringify({ error: { message: "stub error" } }), { status: result.status, headers: { "content-type": "application/json" } });
      return Response.json({
        id: `chatcmpl-${index}`,
        object: "chat.completion",
        created: 0,
        model: body.model,
        choices: [{ index: 0, message: { role: "assistant", content: result.content }, finish_reason: "stop" }],
        usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
      });
    },
  });
  stub.baseUrl = `http://127.0.0.1:${server.port}/v1`;
  return stub;
}
