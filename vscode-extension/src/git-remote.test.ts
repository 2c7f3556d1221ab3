import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeTempDir } from "../../testing/context.ts";
import { parseRemoteUrl, remotesOf, repositoryOfFolder } from "./git-remote.ts";

describe("the repository of a workspace, from its git remote", () => {
  test("remote URLs in the forms git writes", () => {
    const wallet = { owner: "issuepool-demo", name: "xdc-wallet-kit" };
    for (const url of [
      "https://github.com/issuepool-demo/xdc-wallet-kit.git",
      "https://github.com/issuepool-demo/xdc-wallet-kit",
      "https://github.com/issuepool-demo/xdc-wallet-kit/",
      "https://user@github.com/issuepool-demo/xdc-wallet-kit.git",
      "git@github.com:issuepool-demo/xdc-wallet-kit.git",
      "ssh://git@github.com/issuepool-demo/xdc-wallet-kit.git",
      "ssh://git@github.com:22/issuepool-demo/xdc-wallet-kit",
      "git://github.com/issuepool-demo/xdc-wallet-kit.git",
      "http://127.0.0.1:3001/issuepool-demo/xdc-wallet-kit.git",
    ]) {
      expect({ url, repo: parseRemoteUrl(url) }).toEqual({ url, repo: wallet });
    }
    for (const url of ["", "not a url", "https://github.com/", "https://github.com/only-owner", "/local/path/repo", "https://github.com/a b/c"]) {
      expect({ url, repo: parseRemoteUrl(url) }).toEqual({ url, repo: undefined });
    }
  });

  test("remotes of a git config; other sections' url keys are not remotes", () => {
    const config = `[core]\n\tbare = false\n[remote "origin"]\n\turl = git@github.com:me/fork.git\n[submodule "x"]\n\turl = https://github.com/other/sub\n[remote "upstream"]\n\turl = https://github.com/them/project\n`;
    expect([...remotesOf(config)]).toEqual([
      ["origin", "git@github.com:me/fork.git"],
      ["upstream", "https://github.com/them/project"],
    ]);
  });

  test("upstream wins over origin; a worktree's .git file leads to the common config; a subfolder finds the repository above it", async () => {
    const main = await makeTempDir("issuepool-git-");
    mkdirSync(join(main, ".git", "worktrees", "feature"), { recursive: true });
    writeFileSync(join(main, ".git", "config"), `[remote "origin"]\n\turl = git@github.com:me/fork.git\n[remote "upstream"]\n\turl = https://github.com/them/project.git\n`);
    writeFileSync(join(main, ".git", "worktrees", "feature", "commondir"), "../..\n");
    expect(await repositoryOfFolder(main)).toEqual({ owner: "them", name: "project" });

    const worktree = await makeTempDir("issuepool-worktree-");
    writeFileSync(join(worktree, ".git"), `gitdir: ${join(main, ".git", "worktrees", "feature")}\n`);
    mkdirSync(join(worktree, "packages", "app"), { recursive: true });
    expect(await repositoryOfFolder(join(worktree, "packages", "app"))).toEqual({ owner: "them", name: "project" });

    const none = await makeTempDir("issuepool-nogit-");
    mkdirSync(join(none, ".git"));
    expect(await repositoryOfFolder(none)).toBeUndefined();
  });
});
