import { describe, expect, test } from "bun:test";
import { returnNotice } from "./wallet-onramp.ts";

describe("the notice on coming back from the on-ramp", () => {
  test("a purchase: the spec's texts", () => {
    expect(returnNotice("?status=success&orderId=7")).toMatchObject({ type: "success", title: "Purchase Successful", message: "Order 7 is complete. Your balance has been refreshed." });
    expect(returnNotice("?status=failed&orderId=7")).toMatchObject({ type: "error", title: "Purchase Failed" });
    expect(returnNotice("?status=processing")).toMatchObject({ type: "info", title: "Purchase Update", message: "Your order is processing. It will update here when the provider confirms it." });
  });

  test("a sale says it is a sale (issue 16)", () => {
    expect(returnNotice("?onramp=sell&status=success&orderId=8")).toMatchObject({ type: "success", title: "Sale Successful" });
    expect(returnNotice("?onramp=sell&status=success&orderId=8")!.message).toStartWith("Order 8 is complete");
    expect(returnNotice("?onramp=sell&status=failed&orderId=8")).toMatchObject({ type: "error", title: "Sale Failed" });
    expect(returnNotice("?onramp=sell&status=pending&orderId=8")).toMatchObject({ type: "info", title: "Sale Update" });
    for (const search of ["?onramp=sell&status=success", "?onramp=sell&status=failed", "?onramp=sell&status=pending"]) {
      expect(JSON.stringify(returnNotice(search))).not.toContain("Purchase");
    }
  });

  test("no status: not a return", () => {
    expect(returnNotice("")).toBeNull();
    expect(returnNotice("?onramp=sell")).toBeNull();
  });
});
