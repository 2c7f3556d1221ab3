import { beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { makeTempDir, testEnv } from "../../testing/context.ts";
import { createFakeEditor } from "../test/fake-vscode.ts";
import { buildExtension, type BuiltExtension } from "./build.ts";
import { readZip } from "./zip.ts";

/**
 * The .vsix builds here, from the sources in the tree (as from a clean
 * clone: nothing prebuilt is used), into a temporary directory; its manifest
 * declares what VS Code needs, and the bundle inside it activates.
 */
let built: BuiltExtension;
let files: Map<string, Uint8Array>;
let manifest: {
  name: string;
  publisher: string;
  main: string;
  activationEvents: string[];
  contributes: {
    authentication: { id: string; label: string }[];
    commands: { command: string; title: string }[];
    views: Record<string, { id: string; name: string }[]>;
    configuration: { properties: Record<string, unknown> };
  };
};

beforeAll(async () => {
  built = await buildExtension(await makeTempDir("issuepool-vsix-"));
  files = readZip(new Uint8Array(readFileSync(built.vsix)));
  manifest = JSON.parse(new TextDecoder().decode(files.get("extension/package.json")!));
}, 60_000);

describe("the .vsix", () => {
  test("holds the manifest, the bundle and the readme, and nothing of the sources", () => {
    expect([...files.keys()].sort()).toEqual(["[Content_Types].xml", "extension.vsixmanifest", "extension/dist/extension.js", "extension/package.json", "extension/readme.md"]);
    expect(manifest.main).toBe("./dist/extension.js");
    const vsixManifest = new TextDecoder().decode(files.get("extension.vsixmanifest")!);
    expect(vsixManifest).toContain('Id="issuepool"');
    expect(vsixManifest).toContain('Publisher="issuepool"');
  });

  test("publisher.name is the authority of the redirect URI the platform uses", async () => {
    const { VSCODE_REDIRECT_URI } = await testEnv();
    expect(new URL(VSCODE_REDIRECT_URI).host).toBe(`${manifest.publisher}.${manifest.name}`);
  });

  test("declares the URI handler activation, the authentication provider, the view and the commands", () => {
    expect(manifest.activationEvents).toEqual(expect.arrayContaining(["onUri", "onAuthenticationRequest:issuepool"]));
    expect(manifest.contributes.authentication).toEqual([{ id: "issuepool", label: "Issuepool" }]);
    expect(manifest.contributes.views.explorer).toEqual([expect.objectContaining({ id: "issuepool.bounties", name: "Issuepool Bounties" })]);
    const commands = Object.fromEntries(manifest.contributes.commands.map((c) => [c.command, c.title]));
    expect(commands).toMatchObject({
      "issuepool.signIn": "Sign In",
      "issuepool.signOut": "Sign Out",
      "issuepool.openWallet": "Open Wallet",
      "issuepool.copyAddress": "Copy Address",
      "issuepool.claimBounty": "Claim Bounty",
      "issuepool.refreshBounties": "Refresh Bounties",
      "issuepool.openIssue": "Open Issue in Browser",
    });
    expect(Object.keys(manifest.contributes.configuration.properties)).toContain("issuepool.platformUrl");
  });

  test("the bundle needs nothing but vscode and Node's own modules, and activates in an editor", async () => {
    const source = new TextDecoder().decode(files.get("extension/dist/extension.js")!);
    const required = [...source.matchAll(/require\("([^"]+)"\)/g)].map((m) => m[1]!);
    expect(required.filter((name) => name !== "vscode" && !name.startsWith("node:"))).toEqual([]);

    // As VS Code's extension host loads it: CommonJS, with "vscode" supplied by the host.
    const editor = createFakeEditor({ configuration: { "issuepool.platformUrl": "http://127.0.0.1:9" } });
    const module = { exports: {} as { activate(context: unknown): { ready: Promise<void> }; deactivate(): void } };
    const hostRequire = (name: string) => (name === "vscode" ? editor.vscode : require(name));
    new Function("require", "module", "exports", source)(hostRequire, module, module.exports);
    try {
      const api = module.exports.activate(editor.context);
      await api.ready;
      expect(editor.authProvider()).toBeDefined();
      expect(editor.uriHandler()).toBeDefined();
      expect(editor.statusBar[0]!.text).toBe("$(account) Issuepool: Sign In");
      // Every command the manifest declares is registered by the bundle, and no other.
      expect(editor.registeredCommands().sort()).toEqual(manifest.contributes.commands.map((c) => c.command).sort());
      await editor.executeCommand("issuepool.openWallet");
      expect(editor.opened).toEqual(["http://127.0.0.1:9/vscode/wallet"]);
    } finally {
      module.exports.deactivate();
      editor.dispose();
    }
  });
});
