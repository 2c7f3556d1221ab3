import { Hono } from "hono";
import type { AppBindings, AppContext } from "../../context.ts";
import { githubSignInRoutes } from "./github.ts";
import { registerRoutes } from "./register.ts";
import { sessionRoutes } from "./session.ts";
import { vscodeRoutes } from "./vscode.ts";
import { privateAccessRoutes } from "./private-access.ts";

export function authRoutes(ctx: AppContext) {
  return new Hono<AppBindings>()
    .route("/", privateAccessRoutes(ctx))
    .route("/github", githubSignInRoutes(ctx))
    .route("/register", registerRoutes(ctx))
    .route("/vscode", vscodeRoutes(ctx))
    .route("/", sessionRoutes(ctx));
}
