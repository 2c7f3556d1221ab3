export * from "./columns.ts";
export * from "./repositories.ts";
export * from "./pools.ts";
