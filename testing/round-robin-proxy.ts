/**
 * A small round-robin HTTP proxy standing for the load balancer in front of
 * several server instances (api/chain/two-instances.test.ts). It runs as its
 * own process so that its connections to the instances do not share the test
 * client's connection pool. An instance that refuses the connection (killed,
 * restarting) is skipped for the next one; 502 when none answers.
 *
 *   bun testing/round-robin-proxy.ts PORT http://127.0.0.1:A http://127.0.0.1:B ...
 */
const [port, ...backends] = process.argv.slice(2);
if (!port || backends.length === 0) throw new Error("usage: round-robin-proxy.ts PORT BACKEND...");
let next = 0;

const server = Bun.serve({
  port: Number(port),
  hostname: "127.0.0.1",
  idleTimeout: 120,
  async fetch(request) {
    const url = new URL(request.url);
    const body = request.method === "GET" || request.method === "HEAD" ? undefined : await request.arrayBuffer();
    for (let tried = 0; tried < backends.length; tried++) {
      const target = backends[next++ % backends.length]!;
      try {
        return await fetch(`${target}${url.pathname}${url.search}`, { method: request.method, headers: request.headers, body, redirect: "manual" });
      } catch {
        // Down (killed, or not started yet): the next one.
      }
    }
    return new Response("no instance answered", { status: 502 });
  },
});
console.log(JSON.stringify({ msg: "listening", url: `http://127.0.0.1:${server.port}` }));
process.on("SIGTERM", () => {
  server.stop(true);
  process.exit(0);
});
