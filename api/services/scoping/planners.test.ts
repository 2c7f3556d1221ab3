import { describe, expect, test } from "bun:test";
import { planDocument } from "./builtin-planner.ts";
import { requirementTitle } from "./planner-titles.ts";
import { checkPlan, InvalidPlanError, PLAN_LIMITS } from "./plan.ts";
import { openAiPlanner, PlannerFailure } from "./openai-planner.ts";
import { DocumentError, extractDocument, UNSUPPORTED_MESSAGE } from "./extract.ts";
import { Extractor } from "./extractor.ts";
import { markdownToDocx, markdownToPdf, markdownToPlainText, requirementsMarkdown, longRequirementsMarkdown } from "../../../testing/scoping-fixtures.ts";
import { startOpenAiStub } from "../../../testing/openai-stub.ts";
import { phasesOf } from "../../../lib/scoping.ts";

const encode = (s: string) => new TextEncoder().encode(s);

async function fixtures() {
  const md = await requirementsMarkdown();
  return {
    md: { bytes: encode(md), format: "markdown" },
    txt: { bytes: encode(markdownToPlainText(md)), format: "text" },
    pdf: { bytes: await markdownToPdf(md), format: "pdf" },
    docx: { bytes: await markdownToDocx(md), format: "docx" },
  } as const;
}

describe("the built-in planner", () => {
  test("reads the same requirements document in every format into the same useful plan", async () => {
    const extractor = new Extractor();
    try {
      const plans = [];
      for (const [name, fixture] of Object.entries(await fixtures())) {
        const { format, text } = await extractor.extract(fixture.bytes);
        expect(format).toBe(fixture.format);
        const plan = checkPlan(planDocument({ fileName: `requirements.${name}`, text }));
        // The same input gives the same plan.
        expect(planDocument({ fileName: `requirements.${name}`, text })).toEqual(plan);
        plans.push(plan);
      }
      for (const plan of plans) {
        // The document's whole title.
        expect(plan.projectName).toBe("Requirements: Neighbourhood Tool Library");
        expect(plan.tasks.map((t) => t.title)).toEqual(plans[0]!.tasks.map((t) => t.title));
        expect(plan.tasks.map((t) => t.dependencies)).toEqual(plans[0]!.tasks.map((t) => t.dependencies));
      }
      const plan = plans[0]!;
      const byTitle = (title: string) => plan.tasks.find((t) => t.title.includes(title))!;
      // One task per requirement, titled by what it asks; overview, goals, out of scope and glossary are not tasks.
      expect(plan.tasks).toHaveLength(23);
      expect(byTitle("Let users sign up with an e-mail address").description).toContain("- Users must be able to sign up with an e-mail address and a password.");
      // Acceptance criteria go to the requirement they test.
      expect(byTitle("Send a confirmation e-mail").description).toContain("Acceptance criteria:\n- A new member receives the confirmation e-mail within one minute.");
      expect(byTitle("Let users reset a forgotten password").description).toContain("A reset link works once and expires after one hour.");
      // Overlapping reservations need the reservation itself; complexity with reasons.
      expect(byTitle("Prevent two reservations").dependencies).toContain(byTitle("Let members reserve an available tool").id);
      expect(byTitle("Prevent two reservations").complexityReasons).toContain("concurrency");
      expect(byTitle("Take the deposit").estimatedComplexity).toBe("High");
      expect(byTitle("Let admins see a dashboard").estimatedComplexity).toBe("Low");
      expect(plan.summary).toStartWith("The Neighbourhood Tool Library lets residents lend and borrow tools");
      expect(plan.summary).toContain("Out of scope, not planned: Delivery of tools; A native mobile app.");
      expect(phasesOf(plan).length).toBeGreaterThan(1);
    } finally {
      extractor.close();
    }
  });

  test("a document without headings: each requirement becomes a task, titled from what it asks", () => {
    const plan = checkPlan(
      planDocument({ fileName: "notes.txt", text: "Todo app\n\nUsers must be able to add tasks.\nThe system should sync lists across devices.\nAdmins must be able to remove spam.\n" }),
    );
    expect(plan.tasks.map((t) => t.title).sort()).toEqual(["Let admins remove spam", "Let users add tasks", "Sync lists across devices"]);
    expect(requirementTitle("The platform shall export reports as CSV.")).toBe("Export reports as CSV");
  });

  test("a long document stays within the plan's bounds and keeps every section's requirements", () => {
    const plan = checkPlan(planDocument({ fileName: "long.md", text: longRequirementsMarkdown(120) }));
    expect(plan.tasks.length).toBeLessThanOrEqual(PLAN_LIMITS.tasks);
    for (const task of plan.tasks) expect(task.description.length).toBeLessThanOrEqual(PLAN_LIMITS.description);
  });

  test("text with nothing to plan still gives one task naming the document", () => {
    const plan = checkPlan(planDocument({ fileName: "idea.txt", text: "hello" }));
    expect(plan.tasks).toHaveLength(1);
  });
});

describe("the plan check", () => {
  const task = (id: number, dependencies: number[] = []) => ({ id, title: `Task ${id}`, description: "Do it.", estimatedComplexity: "Low", dependencies });
  const plan = (tasks: unknown[]) => ({ projectName: "P", summary: "S", tasks });
  test.each([
    ["ids not 1..n", [task(1), task(3)]],
    ["a dependency on a later task (a cycle needs one)", [task(1, [2]), task(2, [1])]],
    ["a dependency on itself", [task(1, [1])]],
    ["a dependency listed twice", [task(1), task(2, [1, 1])]],
    ["an unknown complexity", [{ ...task(1), estimatedComplexity: "Huge" }]],
    ["an extra field", [{ ...task(1), owner: "bob" }]],
    ["no tasks", []],
    ["too many tasks", Array.from({ length: PLAN_LIMITS.tasks + 1 }, (_, i) => task(i + 1))],
    ["an empty title", [{ ...task(1), title: " " }]],
  ])("refuses %s", (_name, tasks) => {
    expect(() => checkPlan(plan(tasks))).toThrow(InvalidPlanError);
  });
  test("accepts a plan with earlier dependencies", () => {
    expect(checkPlan(plan([task(1), task(2, [1]), task(3, [1, 2])])).tasks).toHaveLength(3);
  });
});

describe("reading documents", () => {
  test("refuses what is not text, Markdown, PDF or DOCX, whatever its name", async () => {
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);
    await expect(extractDocument(png)).rejects.toThrow(UNSUPPORTED_MESSAGE);
    const zip = new Uint8Array([0x50, 0x4b, 0x03, 0x04, ...encode("not a word document")]);
    await expect(extractDocument(zip)).rejects.toBeInstanceOf(DocumentError);
    await expect(extractDocument(encode("%PDF-1.7\nbroken"))).rejects.toThrow("The PDF could not be read");
    await expect(extractDocument(encode("   \n\n "))).rejects.toThrow("contains no text");
  });
});

describe("the OpenAI-compatible planner", () => {
  const good = JSON.stringify({ projectName: "Tool Library", summary: "Lend tools.", tasks: [{ id: 1, title: "Accounts", description: "Sign-up.", estimatedComplexity: "Medium", dependencies: [] }] });
  const document = { fileName: "req.md", text: "# Tool Library\n- Users must sign up." };

  test("asks for a strict json_schema built from the plan's shape and returns the checked plan", async () => {
    const stub = startOpenAiStub(() => ({ content: good }));
    try {
      const plan = await openAiPlanner({ baseUrl: stub.baseUrl, apiKey: "sk-test", model: "test-model", timeoutMs: 5000 }).plan(document);
      expect(checkPlan(plan).tasks[0]!.title).toBe("Accounts");
      const [request] = stub.requests;
      expect(request!.authorization).toBe("Bearer sk-test");
      expect(request!.body.model).toBe("test-model");
      const format = request!.body.response_format!;
      expect(format.type).toBe("json_schema");
      expect(format.json_schema!.strict).toBe(true);
      const schema = format.json_schema!.schema as { required: string[]; additionalProperties: boolean; properties: { tasks: { items: { required: string[] } } } };
      expect(schema.required).toEqual(["projectName", "summary", "tasks"]);
      expect(schema.additionalProperties).toBe(false);
      expect(schema.properties.tasks.items.required).toEqual(["id", "title", "description", "estimatedComplexity", "complexityReasons", "phase", "dependencies"]);
      expect(request!.body.messages.at(-1)!.content).toContain("Users must sign up.");
    } finally {
      await stub.stop();
    }
  });

  test("a malformed answer gets one repair request naming the problem, then succeeds", async () => {
    const stub = startOpenAiStub((_r, i) => ({ content: i === 0 ? '{"projectName": "x"' : good }));
    try {
      await openAiPlanner({ baseUrl: stub.baseUrl, model: "m", timeoutMs: 5000 }).plan(document);
      expect(stub.requests).toHaveLength(2);
      expect(stub.requests[1]!.body.messages.at(-1)!.content).toContain("not valid JSON");
      expect(stub.requests[1]!.authorization).toBeNull();
    } finally {
      await stub.stop();
    }
  });

  test("malformed twice fails for good (no third request)", async () => {
    const bad = JSON.stringify({ projectName: "x", summary: "y", tasks: [{ id: 1, title: "a", description: "b", estimatedComplexity: "Low", dependencies: [1] }] });
    const stub = startOpenAiStub(() => ({ content: bad }));
    try {
      await expect(openAiPlanner({ baseUrl: stub.baseUrl, model: "m", timeoutMs: 5000 }).plan(document)).rejects.toBeInstanceOf(PlannerFailure);
      expect(stub.requests).toHaveLength(2);
      expect(stub.requests[1]!.body.messages.at(-1)!.content).toContain("may only depend on earlier tasks");
    } finally {
      await stub.stop();
    }
  });

  test("no answer within the timeout fails for good", async () => {
    const stub = startOpenAiStub(() => "hang");
    try {
      await expect(openAiPlanner({ baseUrl: stub.baseUrl, model: "m", timeoutMs: 300 }).plan(document)).rejects.toThrow("did not answer within");
    } finally {
      await stub.stop();
    }
  });

  test("a busy or failing server is a passing error (retried), a refusal of the request is not", async () => {
    const stub = startOpenAiStub((_r, i) => (i === 0 ? { status: 503 } : { status: 401, body: '{"error":{"message":"bad key"}}' }));
    try {
      const planner = openAiPlanner({ baseUrl: stub.baseUrl, model: "m", timeoutMs: 5000 });
      const first = await planner.plan(document).catch((e) => e);
      expect(first).not.toBeInstanceOf(PlannerFailure);
      await expect(planner.plan(document)).rejects.toBeInstanceOf(PlannerFailure);
    } finally {
      await stub.stop();
    }
  });
});
