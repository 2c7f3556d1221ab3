import { afterEach, expect, test } from "bun:test";
import { createServer, type Server, type Socket } from "node:net";
import { kycStatus } from "./sell-api.ts";
import { SIGNATURE_HEADER, signWebhookBody } from "./provider.ts";

const SECRET = "sell-api-test-secret";
let server: Server | undefined;
const sockets = new Set<Socket>();
afterEach(async () => {
  for (const socket of sockets) socket.destroy();
  sockets.clear();
  await new Promise<void>((done) => (server ? server.close(() => done()) : done()));
  server = undefined;
});

/**
 * A provider that keeps connections open after answering (HTTP/1.1 keep-alive), and closes one just as the next
 * request arrives on it, as a server does whose idle timeout fires the moment a client reuses the connection:
 * that request is never read, nothing is answered. Requests on a fresh connection are answered.
 */
async function closingProvider(): Promise<{ url: string; requests: () => number; connections: () => number }> {
  let requests = 0;
  let connections = 0;
  const answer = async (socket: Socket) => {
    const body = JSON.stringify({ customerId: "c-1", kycStatus: "approved" });
    const signature = await signWebhookBody(SECRET, body);
    socket.write(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n${SIGNATURE_HEADER}: ${signature}\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: keep-alive\r\n\r\n${body}`);
  };
  server = createServer((socket) => {
    sockets.add(socket);
    connections++;
    let served = 0;
    let buffered = "";
    socket.on("data", (chunk) => {
      buffered += chunk.toString("latin1");
      const end = buffered.indexOf("\r\n\r\n");
      if (end < 0) return;
      const length = Number(/content-length: *(\d+)/i.exec(buffered.slice(0, end))?.[1] ?? 0);
      if (buffered.length < end + 4 + length) return;
      buffered = buffered.slice(end + 4 + length);
      requests++;
      if (served++ === 0) void answer(socket);
      else socket.destroy();
    });
  });
  await new Promise<void>((ready) => server!.listen(0, "127.0.0.1", () => ready()));
  const { port } = server!.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, requests: () => requests, connections: () => connections };
}

test("a kept-alive connection the provider closes as it is reused is asked again on a new one, not reported unreachable", async () => {
  const provider = await closingProvider();
  const env = { ONRAMP_API_URL: provider.url, ONRAMP_APP_ID: "app", ONRAMP_APP_SECRET: SECRET };
  expect((await kycStatus(env, "c-1")).kycStatus).toBe("approved");
  // The second call goes out on the first call's connection, which the provider closes without answering.
  expect((await kycStatus(env, "c-1")).kycStatus).toBe("approved");
  expect(provider.requests()).toBe(3);
  expect(provider.connections()).toBe(2);
});
