import { declareRoute, json, SESSION_WRITE } from "../../openapi/declare.ts";
import { Timestamp } from "../../openapi/shapes.ts";
import { Hono } from "hono";
import { z } from "zod";
import type { AppBindings, AppContext } from "../../context.ts";
import { validate } from "../../validate.ts";
import { rateLimit } from "../../middleware/rate-limit.ts";
import { requireSession } from "../../middleware/session.ts";
import { clientAddress } from "../../middleware/client-address.ts";
import { exportWalletKey, requestKeyExportCode } from "../../services/wallets/key-export.ts";

/** Per IP, on top of the per-user limits kept with the codes themselves (3 codes an hour, 5 tries a code). */
export const EXPORT_REQUEST_RATE_LIMIT = { name: "wallet-export-request", perIp: 30, windowMs: 3600 * 1000 };
export const EXPORT_DATA_RATE_LIMIT = { name: "wallet-export-data", perIp: 60, perUser: 30, windowMs: 3600 * 1000 };

export const ExportDataBody = z.object({
  /** The browser's ephemeral P-256 public key: raw uncompressed point (65 bytes), base64. */
  ephemeralPublicKey: z.string().min(1).max(200),
  otp: z.string().trim().regex(/^\d{6}$/, "Enter the 6-digit code from the e-mail."),
});

/**
 * POST /api/wallet/export-request   e-mails a one-time code            -> { success, message, expiresAt }
 * POST /api/wallet/export-data      { ephemeralPublicKey, otp }         -> { cipherText, iv, serverPublicKey, networkConfig, address, algorithm }
 */
export function exportRoutes(ctx: AppContext) {
  return new Hono<AppBindings>()
    .post("/export-request", rateLimit(ctx, EXPORT_REQUEST_RATE_LIMIT), async (c) => {
      const { user } = requireSession(c);
      return c.json(await requestKeyExportCode(ctx, { user, ip: clientAddress(c, ctx.env.TRUST_PROXY) }));
    })
    .post("/export-data", rateLimit(ctx, EXPORT_DATA_RATE_LIMIT), validate("json", ExportDataBody), async (c) => {
      const { user } = requireSession(c);
      const body = c.req.valid("json");
      const data = await exportWalletKey(ctx, { user, ephemeralPublicKey: body.ephemeralPublicKey, otp: body.otp, ip: clientAddress(c, ctx.env.TRUST_PROXY) });
      c.header("Cache-Control", "no-store");
      return c.json(data);
    });
}

export const CodeSent = z.object({ success: z.literal(true), message: z.string(), expiresAt: Timestamp });

export const exportApi = [
  declareRoute({
    method: "post", path: "/api/wallet/export-request", operationId: "requestKeyExportCode", tags: ["wallet"], security: SESSION_WRITE,
    errors: ["email_required", "mail_unavailable", "rate_limited", "wallet_required"],
    summary: "E-mails a one-time code for exporting the private key",
    responses: { 200: json("Code sent", CodeSent) },
  }),
  declareRoute({
    method: "post", path: "/api/wallet/export-data", operationId: "exportWalletKey", tags: ["wallet"], security: SESSION_WRITE,
    errors: ["invalid_code", "invalid_public_key", "rate_limited", "validation_failed", "wallet_required"],
    summary: "The private key, encrypted to the browser's ephemeral P-256 key",
    request: { body: { content: { "application/json": { schema: ExportDataBody } }, required: true } },
    responses: {
      200: json("The sealed key", z.object({
        cipherText: z.string(), iv: z.string(), serverPublicKey: z.string(), address: z.string(),
        algorithm: z.literal("ECDH-P256/SHA-256/AES-256-GCM"),
        networkConfig: z.object({
          chainId: z.string().regex(/^0x[0-9a-f]+$/), chainName: z.string(),
          nativeCurrency: z.object({ name: z.string(), symbol: z.string(), decimals: z.number().int() }),
          rpcUrls: z.array(z.string()), blockExplorerUrls: z.array(z.string()).optional(),
        }),
      })),
    },
  }),
];
