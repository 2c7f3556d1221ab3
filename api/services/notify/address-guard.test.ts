import { describe, expect, test } from "bun:test";
import { AddressRefused, assertPublicUrl, isAllowedAddress } from "./address-guard.ts";

/** Which addresses outbound webhooks may call (issue 30): public ones only; 127.0.0.1 alone when allowed (tests, development). */
describe("isAllowedAddress", () => {
  const refused = [
    "127.0.0.1", "127.1.2.3", "0.0.0.0", "10.0.0.1", "172.16.0.1", "172.31.255.255", "192.168.1.1", "100.64.0.1", "100.100.100.200",
    "169.254.169.254", "169.254.0.1", "192.0.0.1", "198.18.0.1", "224.0.0.1", "255.255.255.255", "203.0.113.5",
    "::", "::1", "fe80::1", "fc00::1", "fd00:ec2::254", "ff02::1", "::ffff:127.0.0.1", "::ffff:10.0.0.1", "::ffff:7f00:1", "64:ff9b::a9fe:a9fe",
    "2002:7f00:1::", "2001:db8::1", "not-an-ip",
    // Issue 36: the translation forms the hand-written prefixes missed, each hiding a loopback or private IPv4.
    "::ffff:0:7f00:1", "::ffff:0:127.0.0.1", "::ffff:0:a00:1", "64:ff9b:1::7f00:1", "64:ff9b:1::808:808", "64:ff9b::7f00:1", "64:ff9b::10.0.0.1",
    "2002:a00:1::1", "2002:c0a8:101::", "2001:0:4136:e378:8000:63bf:80ff:fffe" /* Teredo, client 127.0.0.1 */, "2001:0:7f00:1::808:808" /* Teredo, server 127.0.0.1 */,
    "::7f00:1", "::127.0.0.1", "::8.8.8.8" /* IPv4-compatible: deprecated */,
    // The library's other special ranges: none is a global address.
    "192.0.2.1", "192.88.99.1", "192.175.48.1", "192.52.193.1", "240.0.0.1", "2001:2::1", "2001:3::1", "2001:20::1", "2001:10::1", "2001:4:112::1",
    "100::1", "fec0::1", "5f00::1", "3fff::1", "fe80::1%eth0", "::ffff:169.254.169.254", "::ffff:0:169.254.169.254", "::ffff:100.64.0.1",
  ];
  const allowed = [
    "93.184.216.34", "8.8.8.8", "172.32.0.1", "100.128.0.1", "2606:4700:4700::1111", "::ffff:8.8.8.8", "2a00:1450:4001::200e",
    // A translation form passes when the IPv4 address inside it is global.
    "::ffff:0:808:808", "64:ff9b::808:808", "2002:808:808::1", "2001:0:808:808::f7f7:f7f7" /* Teredo: server and client 8.8.8.8 */,
  ];
  for (const ip of refused) test(`refuses ${ip}`, () => expect(isAllowedAddress(ip, false)).toBe(false));
  for (const ip of allowed) test(`allows ${ip}`, () => expect(isAllowedAddress(ip, false)).toBe(true));
  test("the loopback setting lets 127.0.0.1 alone through", () => {
    expect(isAllowedAddress("127.0.0.1", true)).toBe(true);
    for (const ip of ["127.0.0.2", "::1", "10.0.0.1", "169.254.169.254", "0.0.0.0"]) expect(isAllowedAddress(ip, true)).toBe(false);
  });
});

describe("assertPublicUrl", () => {
  test("a name is refused when any address it resolves to is not public", async () => {
    const resolve = async () => ["93.184.216.34", "10.1.2.3"];
    await expect(assertPublicUrl(new URL("https://mixed.example/hook"), { allowLoopback: false, resolve })).rejects.toBeInstanceOf(AddressRefused);
  });
  test("literal addresses are checked without DNS, IPv6 in brackets too", async () => {
    const resolve = async () => { throw new Error("DNS must not be asked"); };
    await expect(assertPublicUrl(new URL("http://[::1]:8080/"), { allowLoopback: true, resolve })).rejects.toBeInstanceOf(AddressRefused);
    await expect(assertPublicUrl(new URL("https://8.8.8.8/"), { allowLoopback: false, resolve })).resolves.toBeUndefined();
  });
});
