import { lookup as dnsLookup } from "node:dns";
import http from "node:http";
import https from "node:https";
import { isIP, type LookupFunction } from "node:net";
import ipaddr from "ipaddr.js";

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

/**
 * The classification is ipaddr.js's range tables (`range()`: IANA's special-purpose registries, kept up to date by
 * the library), not prefixes written here: only `unicast` (a global address) passes. The translation forms carry an
 * IPv4 address inside an IPv6 one, and a gateway on the way connects to that IPv4 address: IPv4-mapped
 * (::ffff:a.b.c.d), IPv4-translated (::ffff:0:a.b.c.d, RFC 6145), NAT64's well-known prefix (64:ff9b::/96,
 * RFC 6052), 6to4 (2002:AABB:CCDD::/48) and Teredo (2001:0::/32: its server and its obfuscated client). Each passes
 * only when every IPv4 address it embeds is itself global. Refused whatever they embed: the local-use NAT64 prefix
 * 64:ff9b:1::/48 (RFC 8215: local networks only, the embedded position depends on each network's prefix length)
 * and the deprecated IPv4-compatible form ::a.b.c.d (RFC 4291), which the library does not name.
 */
const TRANSLATED = new Set(["ipv4Mapped", "rfc6145", "rfc6052", "6to4", "teredo"]);

function v4Allowed(address: ipaddr.IPv4): boolean {
  return address.range() === "unicast";
}

const v4Of = (high: number, low: number) => new ipaddr.IPv4([high >> 8, high & 255, low >> 8, low & 255]);

/** The IPv4 addresses a translation form carries (empty when it is not one the guard can read). */
function embeddedV4(address: ipaddr.IPv6, range: string): ipaddr.IPv4[] {
  const g = address.parts;
  switch (range) {
    case "ipv4Mapped":
    case "rfc6145":
      return [v4Of(g[6]!, g[7]!)];
    case "rfc6052":
      // Only the well-known /96 prefix has its IPv4 in the last 32 bits; the local-use /48 is refused before this.
      return [v4Of(g[6]!, g[7]!)];
    case "6to4":
      return [v4Of(g[1]!, g[2]!)];
    case "teredo":
      // The Teredo server, and the client's address stored inverted in the last 32 bits (RFC 4380).
      return [v4Of(g[2]!, g[3]!), v4Of(~g[6]! & 0xffff, ~g[7]! & 0xffff)];
    default:
      return [];
  }
}

function v6Allowed(address: ipaddr.IPv6): boolean {
  const g = address.parts;
  if (g.slice(0, 6).every((x) => x === 0)) return false; // ::, ::1 and the deprecated IPv4-compatible ::a.b.c.d
  if (g[0] === 0x64 && g[1] === 0xff9b && g[2] === 0x1) return false; // local-use NAT64 (RFC 8215)
  const range = address.range();
  if (range === "unicast") return true;
  if (!TRANSLATED.has(range)) return false;
  const inside = embeddedV4(address, range);
  return inside.length > 0 && inside.every(v4Allowed);
}

/**
 * An IPv6 address with a dotted IPv4 tail written as two hex groups: the library reads `::a.b.c.d` as the
 * IPv4-mapped `::ffff:a.b.c.d`, while the socket reads the IPv4-compatible form it is. Undefined: a bad tail.
 */
function hexTail(ip: string): string | undefined {
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(ip);
  if (!tail) return ip;
  if (!ipaddr.IPv4.isValidFourPartDecimal(tail[1]!)) return undefined;
  const [a, b, c, d] = ipaddr.IPv4.parse(tail[1]!).octets as [number, number, number, number];
  return `${ip.slice(0, -tail[1]!.length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
}

/** Whether an outbound call may go to this IP address. */
export function isAllowedAddress(ip: string, allowLoopback: boolean): boolean {
  const family = isIP(ip);
  if (family === 0) return false;
  if (allowLoopback && ip === "127.0.0.1") return true;
  if (family === 4) return ipaddr.IPv4.isValidFourPartDecimal(ip) && v4Allowed(ipaddr.IPv4.parse(ip));
  const bare = hexTail(ip.split("%")[0]!);
  if (bare === undefined || !ipaddr.IPv6.isValid(bare)) return false;
  return v6Allowed(ipaddr.IPv6.parse(bare));
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
