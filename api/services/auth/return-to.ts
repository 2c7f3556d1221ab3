/** The one return-to rule (lib/return-to.ts), checked against this site's public URL. */
export { DEFAULT_RETURN_TO, safeReturnTo } from "../../../lib/return-to.ts";
