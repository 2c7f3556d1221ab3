import { zValidator } from "@hono/zod-validator";
import type { ValidationTargets } from "hono";
import type { ZodType } from "zod";
import { DomainError, ErrorCode } from "./errors.ts";

/**
 * `zValidator` with our error shape: the first problem, named by field, in a
 * sentence. Handlers read input only through `c.req.valid(target)`.
 */
export function validate<T extends ZodType, Target extends keyof ValidationTargets>(target: Target, schema: T) {
  return zValidator(target, schema, (result) => {
    if (result.success) return;
    const issues = result.error.issues;
    const first = issues[0];
    const field = first?.path.join(".");
    const message = first ? (field ? `${field}: ${first.message}` : first.message) : "Invalid input";
    throw new DomainError({
      code: ErrorCode.VALIDATION_FAILED,
      error: "Invalid input",
      message,
      details: { issues: issues.map((i) => ({ path: i.path.join("."), message: i.message })) },
    });
  });
}
