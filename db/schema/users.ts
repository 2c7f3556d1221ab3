import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { timestamp } from "./columns.ts";

export const ROLES = ["contributor", "poolmanager"] as const;
export type Role = (typeof ROLES)[number];

/** A person who signed in with GitHub. Identity is the GitHub user id. */
export const users = sqliteTable(
  "users",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    githubId: integer("github_id").notNull(),
    username: text("username").notNull(),
    name: text("name"),
    email: text("email"),
    avatarUrl: text("avatar_url"),
    bio: text("bio"),
    location: text("location"),
    website: text("website"),
    role: text("role", { enum: ROLES }),
    isProfileComplete: integer("is_profile_complete", { mode: "boolean" }).notNull().default(false),
    /** The owner chose to show their wallet address on their public profile (/@login); hidden unless they do. */
    showWalletAddress: integer("show_wallet_address", { mode: "boolean" }).notNull().default(false),
    /** The user's GitHub OAuth token, sealed (api/crypto/envelope.ts); never plaintext. */
    githubTokenSealed: text("github_token_sealed"),
    /**
     * The token reaches private repositories: an OAuth token granted the `repo` scope (the upgrade sign-in,
     * /api/auth/github/upgrade-private), or a GitHub App user token (access by installation, no scope).
     */
    hasPrivateRepoAccess: integer("has_private_repo_access", { mode: "boolean" }).notNull().default(false),
    createdAt: timestamp("created_at").notNull().default(sql`(unixepoch() * 1000)`),
    updatedAt: timestamp("updated_at").notNull().default(sql`(unixepoch() * 1000)`),
    lastSignInAt: timestamp("last_sign_in_at"),
  },
  (t) => [uniqueIndex("users_github_id_idx").on(t.githubId), index("users_username_idx").on(sql`lower(${t.username})`)],
);

export type User = typeof users.$inferSelect;
