/**
 * The production image (Containerfile, issue 41). Podman builds images on
 * these machines (with chroot isolation; it cannot run containers), so when
 * it is installed the image is built for real: the runtime stage on an empty
 * base, with a small prepared /app standing in for the `build` stage (which
 * installs 1.4 GB of dependencies and needs the registries' base images), and
 * its configuration is read back: a non-root user, the data volume, the
 * production command, the liveness check.
 */
import { expect, test } from "bun:test";
import { mkdir, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { makeTempDir } from "../../testing/context.ts";

const ROOT = resolve(import.meta.dir, "../..");
const podman = Bun.which("podman");

async function run(cmd: string[], cwd = ROOT): Promise<string> {
  const proc = Bun.spawn(cmd, { cwd, stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new Error(`${cmd.join(" ")} exited ${code}:\n${err.slice(-3000)}`);
  return out;
}

test.skipIf(!podman)("podman builds the Containerfile: non-root user, /data volume, the production command, a liveness check", async () => {
  const tag = `localhost/issuepool-containerfile-test:${process.pid}`;
  const appTag = `localhost/issuepool-containerfile-app:${process.pid}`;
  const dir = await makeTempDir("issuepool-image-");
  try {
    await mkdir(join(dir, "app", "api"), { recursive: true });
    await writeFile(join(dir, "app", "api", "serve.ts"), "// stands in for the built application\n");
    await writeFile(join(dir, "Containerfile"), "FROM scratch\nCOPY app /app\n");
    await run([podman!, "build", "--isolation=chroot", "--layers=false", "-q", "-t", appTag, dir]);
    await run([
      podman!, "build", "--isolation=chroot", "--layers=false", "--format=docker", "-q",
      "--build-arg", "RUNTIME_IMAGE=scratch", "--build-arg", `APP_STAGE=${appTag}`,
      "-t", tag, "-f", "Containerfile", ".",
    ]);
    const [image] = JSON.parse(await run([podman!, "image", "inspect", tag])) as { Config: Record<string, unknown>; Healthcheck?: { Test: string[] } }[];
    const config = image!.Config as { User: string; Volumes: Record<string, unknown>; Cmd: string[]; Env: string[]; WorkingDir: string; ExposedPorts: Record<string, unknown> };
    expect(config.User).toBe("65532:65532");
    expect(Object.keys(config.Volumes)).toEqual(["/data"]);
    expect(config.WorkingDir).toBe("/app");
    expect(config.Cmd).toEqual(["/app/node_modules/.bin/bun", "api/serve.ts"]);
    expect(config.Env).toEqual(expect.arrayContaining(["NODE_ENV=production", "DATA_DIR=/data", "HOST=0.0.0.0", "PORT=3000"]));
    expect(Object.keys(config.ExposedPorts)).toEqual(["3000/tcp"]);
    expect(image!.Healthcheck?.Test.join(" ")).toContain("/api/health/live");
  } finally {
    await run([podman!, "rmi", "-f", tag, appTag]).catch(() => undefined);
  }
}, 180_000);

test("the build context leaves out the data directory, dependencies and secrets", async () => {
  const ignored = (await Bun.file(join(ROOT, ".containerignore")).text()).split("\n").map((l) => l.trim());
  for (const entry of ["node_modules", "data", "dist", ".git", ".env", "*.db"]) expect(ignored).toContain(entry);
});
