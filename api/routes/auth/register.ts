import { declareRoute, json, SESSION_WRITE } from "../../openapi/declare.ts";
import { Success, UserObject } from "../../openapi/shapes.ts";
import { Hono } from "hono";
import { z } from "zod";
import { positiveId } from "../params.ts";
import type { AppBindings, AppContext } from "../../context.ts";
import { validate } from "../../validate.ts";
import { rateLimit } from "../../middleware/rate-limit.ts";
import { requireSession } from "../../middleware/session.ts";
import { setHintCookie } from "../../middleware/cookies.ts";
import { clientAddress } from "../../middleware/client-address.ts";
import { ErrorCode, forbidden, refused } from "../../errors.ts";
import { ROLES } from "../../../db/schema/index.ts";
import { registerUser } from "../../services/users/register.ts";

export const REGISTER_RATE_LIMIT = { name: "register", perIp: 50, perUser: 10, windowMs: 3600 * 1000 };

const RegisterBody = z.object({
  role: z.enum(ROLES, { message: "role must be contributor or poolmanager" }),
  email: z.email("Enter a valid e-mail address.").max(254).optional(),
  // The service variant names the user; it must be the signed-in user.
  username: z.string().max(100).optional(),
  githubId: positiveId.optional(),
});

/** POST /api/auth/register: role and e-mail; creates the custodial wallet. */
export function registerRoutes(ctx: AppContext) {
  return new Hono<AppBindings>().post("/", rateLimit(ctx, REGISTER_RATE_LIMIT), validate("json", RegisterBody), async (c) => {
    const { user } = requireSession(c);
    const body = c.req.valid("json");
    if ((body.githubId !== undefined && body.githubId !== user.githubId) || (body.username !== undefined && body.username !== user.username)) {
      throw forbidden("You can only register yourself.", ErrorCode.NOT_OWNER);
    }
    const email = body.email ?? user.email;
    if (!email) throw refused(ErrorCode.EMAIL_REQUIRED, "An e-mail address is required.", { error: "Registration Failed" });
    const registered = await registerUser(ctx, { user, role: body.role, email, ip: clientAddress(c, ctx.env.TRUST_PROXY) });
    setHintCookie(c, ctx.env, registered.role);
    return c.json({ success: true, user: registered });
  });
}

export const registerApi = [
  declareRoute({
    method: "post", path: "/api/auth/register", operationId: "register", tags: ["auth"], security: SESSION_WRITE,
    errors: ["already_registered", "email_required", "not_owner", "rate_limited", "validation_failed"],
    summary: "Completes registration: role and e-mail; creates the custodial wallet",
    request: { body: { content: { "application/json": { schema: RegisterBody } }, required: true } },
    responses: { 200: json("Registered", Success.extend({ user: UserObject })) },
  }),
];
