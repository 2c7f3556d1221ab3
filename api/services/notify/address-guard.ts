import { lookup as dnsLookup } from "node:dns";
import http from "node:http";
import https from "node:https";
import { isIP, type LookupFunction } from "node:net";

/**
 * Outbound webhooks call only public addresses (issue 30): never loopback, private (RFC 1918), carrier-grade NAT,
 * link-local (the cloud metadata services at 169.254.169.254 and fd00:ec2::254 included), unique-local,
 * multicast, reserved or documentation ranges. Checked twice: when a URL is saved (a literal address, or a name
 * that resolves to one) and when a message is sent, on the very address the connection uses (the request's
 * `lookup` is this guard), so a name that resolves to a public address at save time and to 127.0.0.1 later
 * (DNS rebinding) is refused. `allowLoopback` (OUTBOUND_ALLOW_LOOPBACK, never in production) lets 127.0.0.1
 * alone through: the local receiver of tests and development.
 */
export class AddressRefused extends Error {
  constructor(readonly address: string) {
    super(`refused: ${address} is not a public address`);
  }
}

const V4_BLOCKED: [string, number][] = [
  ["0.0.0.0", 8], // "this network"
  ["10.0.0.0", 8],
  ["100.64.0.0", 10], // carrier-grade NAT (and Alibaba's metadata at 100.100.100.200)
  ["127.0.0.0", 8],
  ["169.254.0.0", 16], // link-local, cloud metadata
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.88.99.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, broadcast
];

const v4ToInt = (ip: string) => ip.split(".").reduce((n, part) => (n << 8) + Number(part), 0) >>> 0;

function v4Blocked(ip: string): boolean {
  const n = v4ToInt(ip);
  return V4_BLOCKED.some(([base, bits]) => ((n ^ v4ToInt(base)) >>> (32 - bits)) === 0);
}

/** The 8 groups of an IPv6 address (with an embedded IPv4 tail turned into two groups). */
function v6Groups(ip: string): number[] {
  let text = ip.toLowerCase().split("%")[0]!;
  const v4Tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4Tail) {
    const n = v4ToInt(v4Tail[1]!);
    text = `${text.slice(0, -v4Tail[1]!.length)}${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
  }
  const [head, tail] = text.split("::") as [string, string | undefined];
  const parse = (s: string) => (s ? s.split(":").map((g) => parseInt(g, 16)) : []);
  const h = parse(head);
  const t = tail === undefined ? [] : parse(tail);
  return [...h, ...Array(8 - h.length - t.length).fill(0), ...t];
}

function v6Blocked(ip: string): boolean {
  const g = v6Groups(ip);
  const embeddedV4 = () => `${g[6]! >> 8}.${g[6]! & 255}.${g[7]! >> 8}.${g[7]! & 255}`;
  if (g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff) return v4Blocked(embeddedV4()); // ::ffff:a.b.c.d
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) return v4Blocked(embeddedV4()); // NAT64
  if (g.slice(0, 6).every((x) => x === 0)) return true; // ::, ::1, IPv4-compatible
  const first = g[0]!;
  if ((first & 0xfe00) === 0xfc00) return true; // fc00::/7 unique-local (fd00:ec2::254 included)
  if ((first & 0xffc0) === 0xfe80 || (first & 0xffc0) === 0xfec0) return true; // link-local, site-local
  if ((first & 0xff00) === 0xff00) return true; // multicast
  if (first === 0x2001 && g[1] === 0x0db8) return true; // documentation
  if (first === 0x0100 && g.slice(1, 4).every((x) => x === 0)) return true; // discard-only
  if (first === 0x2002) return v4Blocked(`${g[1]! >> 8}.${g[1]! & 255}.${g[2]! >> 8}.${g[2]! & 255}`); // 6to4
  return false;
}

/** Whether an outbound call may go to this IP address. */
export function isAllowedAddress(ip: string, allowLoopback: boolean): boolean {
  const family = isIP(ip);
  if (family === 0) return false;
  if (allowLoopback && ip === "127.0.0.1") return true;
  return family === 4 ? !v4Blocked(ip) : !v6Blocked(ip);
}

export type Resolve = (host: string) => Promise<string[]>;

const systemResolve: Resolve = (host) =>
  new Promise((resolve, reject) =>
    dnsLookup(host, { all: true }, (err, addresses) => (err ? reject(err) : resolve(addresses.map((a) => a.address)))),
  );

/** The URL's host names only allowed addresses (every one it resolves to); throws AddressRefused otherwise. */
export async function assertPublicUrl(url: URL, options: { allowLoopback: boolean; resolve?: Resolve }): Promise<void> {
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const addresses = isIP(host) ? [host] : await (options.resolve ?? systemResolve)(host);
  if (!addresses.length) throw new AddressRefused(host);
  for (const address of addresses) if (!isAllowedAddress(address, options.allowLoopback)) throw new AddressRefused(address);
}

/** A `lookup` for node:http that resolves, refuses any non-public answer, and connects to the address it checked. */
export function guardedLookup(allowLoopback: boolean, resolve: Resolve = systemResolve): LookupFunction {
  return ((hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    const host = hostname.replace(/^\[|\]$/g, "");
    (isIP(host) ? Promise.resolve([host]) : resolve(host)).then(
      (addresses) => {
        const refused = addresses.find((a) => !isAllowedAddress(a, allowLoopback));
        if (refused !== undefined || !addresses.length) return callback(new AddressRefused(refused ?? host));
        const entries = addresses.map((address) => ({ address, family: isIP(address) }));
        if (options?.all) callback(null, entries);
        else callback(null, entries[0]!.address, entries[0]!.family);
      },
      (err) => callback(err),
    );
  }) as unknown as LookupFunction;
}

export interface PostResult {
  /** null: no answer (refused address, timeout, connection error). */
  statusCode: number | null;
  latencyMs: number;
  error?: string;
  /** The start of the answer's body (the log keeps it short). */
  body?: string;
}

/**
 * POSTs `body` to `url` through the guard. Redirects are not followed (a 3xx is an answer, not a success: following
 * one would leave the checked address). Never throws.
 */
export function guardedPost(
  url: URL,
  headers: Record<string, string>,
  body: string,
  options: { allowLoopback: boolean; timeoutMs: number; resolve?: Resolve },
): Promise<PostResult> {
  const started = performance.now();
  const latency = () => Math.round(performance.now() - started);
  // An address written in the URL is never looked up (node:net connects to it directly), so the lookup below
  // would not see it: it is checked here, before any connection.
  const literal = url.hostname.replace(/^\[|\]$/g, "");
  if (isIP(literal) && !isAllowedAddress(literal, options.allowLoopback)) {
    return Promise.resolve({ statusCode: null, latencyMs: latency(), error: new AddressRefused(literal).message });
  }
  return new Promise((done) => {
    const client = url.protocol === "https:" ? https : http;
    let settled = false;
    const finish = (result: PostResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      done(result);
    };
    const request = client.request(
      url,
      {
        method: "POST",
        headers: { "content-type": "application/json", "user-agent": "Issuepool-Webhooks/1", ...headers, "content-length": String(Buffer.byteLength(body)) },
        lookup: guardedLookup(options.allowLoopback, options.resolve),
      },
      (response) => {
        let text = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => {
          if (text.length < 500) text += chunk;
        });
        response.on("end", () => finish({ statusCode: response.statusCode ?? null, latencyMs: latency(), body: text.slice(0, 500) }));
        response.on("error", (err) => finish({ statusCode: response.statusCode ?? null, latencyMs: latency(), error: err.message }));
      },
    );
    const timer = setTimeout(() => {
      request.destroy();
      finish({ statusCode: null, latencyMs: latency(), error: `no answer within ${options.timeoutMs} ms` });
    }, options.timeoutMs);
    request.on("error", (err) => finish({ statusCode: null, latencyMs: latency(), error: err instanceof AddressRefused ? err.message : `connection failed: ${err.message}` }));
    request.end(body);
  });
}
