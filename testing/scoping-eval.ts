/**
 * The scoping planners' evaluation set (issue 28): requirements documents of
 * different styles, each with what it holds. The documents are written as
 * Markdown or text in testing/scoping-eval/; the tests turn them into PDF or
 * DOCX with the fixture helpers (testing/scoping-fixtures.ts). The 50-page
 * document is generated here (a real document of that length would be 2,000
 * lines of fixture).
 */
import { readFileSync } from "node:fs";

export interface EvalDocument {
  name: string;
  /** How the test hands it over: the text as is, or turned into a PDF or DOCX first. */
  format: "markdown" | "text" | "pdf" | "docx";
  text: string;
  /** Every requirement it holds: an identifier, or words of its text. */
  requirements: string[];
  /** Headings of sections that are not work (no task may be made of them). */
  nonWork: string[];
  /** Text of context items (out of scope, roles, glossary) that must not become tasks. */
  notTasks: string[];
  /** [needs, needed]: the task holding the first needs (directly or through others) the task holding the second. */
  dependency: [string, string];
  /** Items the plan's summary lists as out of scope. */
  outOfScope?: string[];
  /** The document's milestones, in order, when it has them. */
  phases?: string[];
  /** Its goals, each said in the plan's summary. */
  goals?: string[];
  /** [task, other]: the task holding the first must not need (directly or through others) the one holding the second. */
  independent?: [string, string][];
}

const file = (name: string) => readFileSync(new URL(`./scoping-eval/${name}`, import.meta.url), "utf8");
const ids = (prefix: string, from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => `${prefix}${from + i}`);

/** How many requirements module m of the long specification has (4 to 12: modules differ). */
const moduleSize = (m: number) => 4 + ((m * 5) % 9);

/** A 50-page specification: 26 modules of 12 numbered requirements, with the usual context around them. */
export function fiftyPageMarkdown(): string {
  const modules = [
    "Customer accounts", "Product catalogue", "Search", "Shopping cart", "Checkout", "Payments", "Orders", "Shipping",
    "Returns", "Inventory", "Warehouse picking", "Suppliers", "Purchase orders", "Pricing", "Promotions", "Loyalty points",
    "Reviews", "Customer support", "Notifications", "Content pages", "Store locator", "Gift cards", "Tax", "Reporting", "Data import", "Administration",
  ];
  const actions = [
    "The system shall let staff create, edit and archive {m} records with a full change history kept for seven years.",
    "Customers shall be able to view {m} information on the web shop and in the mobile app, with the same data in both.",
    "The system shall validate every {m} change against the business rules and show the reason for each refusal.",
    "The system shall export {m} data as CSV every night to the data warehouse over SFTP.",
    "Store managers shall be able to filter {m} lists by store, date range and status, and save their filters.",
    "The system shall send an e-mail to the responsible team when a {m} task has waited more than 24 hours.",
    "The {m} pages shall load in under 1 second for 95% of requests with 5,000 concurrent users.",
    "The system shall keep an audit log of who changed {m} data and when, as GDPR requires.",
    "The system shall offer {m} screens in English, German and French.",
    "Staff shall be able to import {m} data from the legacy ERP export during the migration.",
    "The system shall prevent two staff members from changing the same {m} record at the same time.",
    "The system shall show {m} figures on the operations dashboard, updated in real time.",
  ];
  const parts = [
    "# Northwind Commerce Platform - System Requirements Specification v3.0",
    "",
    "## 1 Introduction",
    "",
    "### 1.1 Purpose",
    "",
    "This specification describes the commerce platform that replaces Northwind's twelve-year-old web shop, its warehouse tools and its back-office spreadsheets. It is written for the engineering teams and the suppliers who will build it.",
    "",
    "### 1.2 Background",
    "",
    "Northwind sells kitchen equipment to consumers and restaurants in three countries. The current shop cannot take new payment methods, the warehouse works from printed pick lists, and finance closes each month by hand.",
    "",
    "## 2 Users",
    "",
    "- Customer: buys online or in a store",
    "- Store manager: runs one of the 40 stores",
    "- Warehouse picker: prepares orders in the central warehouse",
    "- Finance clerk: closes the month and pays suppliers",
    "",
    "## 3 Requirements",
    "",
  ];
  modules.forEach((module, m) => {
    parts.push(`### 3.${m + 1} ${module}`, "", `This module covers ${module.toLowerCase()} for customers, stores and the back office. It builds on the shared services of the platform and follows the design system.`, "");
    actions.slice(0, moduleSize(m)).forEach((action, a) =>
      parts.push(
        `3.${m + 1}.${a + 1} ${action.replaceAll("{m}", module.toLowerCase())}`,
        "",
        `Rationale: stores and the back office asked for this in the 2025 survey of ${module.toLowerCase()}. Today the same work takes a clerk about ${10 + ((m * 7 + a * 3) % 40)} minutes a day in spreadsheets, and mistakes reach customers as wrong prices, late parcels or duplicate e-mails. The product owner ranked it ${a < 4 ? "essential" : a < 8 ? "important" : "useful"} for the first year, and the support team expects fewer tickets once it is live in every store and in the warehouse.`,
        "",
      ),
    );
    parts.push(`Module notes: the ${module.toLowerCase()} team owns these requirements; questions go to the product owner named in the project charter, who answers within two working days and records the answer in the decision log.`, "");
  });
  parts.push(
    "## 4 Out of scope",
    "",
    "- Marketplace sellers",
    "- Point-of-sale hardware",
    "",
    "## 5 Assumptions",
    "",
    "- The data warehouse accepts nightly CSV files over SFTP.",
    "",
    "## 6 Glossary",
    "",
    "- SKU: stock keeping unit",
    "- ERP: enterprise resource planning system",
  );
  return parts.join("\n");
}

export function evaluationSet(): EvalDocument[] {
  const clinicNonWork = ["Background", "Users", "Out of scope", "Milestones", "Acceptance"];
  return [
    {
      name: "clinicping.pdf (numbered ids, milestones, acceptance section)",
      format: "pdf",
      text: file("clinicping.md"),
      requirements: [...ids("FR-", 1, 7), ...ids("NFR-", 1, 5)],
      nonWork: clinicNonWork,
      notTasks: ["Online booking of new appointments", "Video consultations", "books and attends appointments"],
      dependency: ["FR-7", "FR-1"],
      outOfScope: ["Online booking of new appointments", "Video consultations"],
      phases: ["M1 Pilot (March)", "M2 Waiting list (May)", "M3 Reporting (July)"],
    },
    {
      name: "clinicping-broken.pdf (a broken text layer: ids and words split across lines, page furniture)",
      format: "pdf",
      text: file("clinicping-broken.txt"),
      requirements: [...ids("FR-", 1, 7), ...ids("NFR-", 1, 5)],
      nonWork: clinicNonWork,
      notTasks: ["Online booking of new appointments", "Video consultations", "Page 1 of 2"],
      dependency: ["FR-7", "FR-1"],
      outOfScope: ["Online booking of new appointments"],
      phases: ["M1 Pilot", "M2 Waiting list", "M3 Reporting"],
    },
    {
      name: "fieldcrew.docx (feature bullets F1…F6, constraints, release plan)",
      format: "docx",
      text: file("fieldcrew.md"),
      requirements: [...ids("F", 1, 6), "exportable and deletable on request (GDPR)", "company Google account", "Android 10"],
      nonWork: ["Purpose", "Roles", "Out of scope", "Release plan"],
      notTasks: ["Stock management for the van", "Payroll", "plans the day and assigns jobs"],
      dependency: ["F3", "engineers sign in"],
      outOfScope: ["Stock management for the van", "Payroll"],
      phases: ["Release 1", "Release 2"],
    },
    {
      name: "invoice-tracker.md (three sections, six requirements without ids)",
      format: "markdown",
      text: file("invoice-tracker.md"),
      requirements: ["add clients with a name", "archive a client", "create an invoice for a client", "marks an invoice overdue", "Payments are recorded when Stripe", "monthly report of invoiced"],
      nonWork: [],
      notTasks: [],
      dependency: ["monthly report of invoiced", "Payments are recorded"],
    },
    {
      name: "stories.txt (user stories US-1…US-8, plain text)",
      format: "text",
      text: file("stories.txt"),
      requirements: ids("US-", 1, 8),
      nonWork: ["Context", "Who uses it", "Not in this version"],
      notTasks: ["Expense claims", "Training records", "gives a few hours a week"],
      dependency: ["US-3", "US-1"],
      outOfScope: ["Expense claims", "Training records"],
    },
    {
      name: "table.md (a requirements table with priorities and acceptance)",
      format: "markdown",
      text: file("table.md"),
      requirements: ids("REQ-", 1, 8),
      nonWork: ["Overview", "Glossary"],
      notTasks: ["one door of a locker"],
      dependency: ["REQ-8", "REQ-6"],
    },
    {
      name: "table.docx (the same table through Word)",
      format: "docx",
      text: file("table.md"),
      requirements: ids("REQ-", 1, 8),
      nonWork: ["Overview", "Glossary"],
      notTasks: ["one door of a locker"],
      dependency: ["REQ-8", "REQ-6"],
    },
    {
      name: "prose.txt (prose only: no ids, no lists, no headings)",
      format: "text",
      text: file("prose.txt"),
      requirements: ["post what they have to spare", "reserve an offer", "digest of the week's new offers", "how much produce changed hands", "society login"],
      nonWork: [],
      notTasks: ["notice board in the shed"],
      dependency: ["reserve an offer", "society login"],
    },
    {
      name: "srs.pdf (IEEE-style numbered requirements 3.1.1, definitions, assumptions)",
      format: "pdf",
      text: file("srs.md"),
      requirements: ["3.1.1", "3.1.2", "3.1.3", "3.1.4", "3.2.1", "3.2.2", "3.2.3", "3.3.1"],
      nonWork: ["Introduction", "Purpose", "Definitions", "Assumptions"],
      notTasks: ["a 30-minute period in a room", "Every student has a university account"],
      dependency: ["3.2.3", "3.1.3"],
    },
    {
      name: "req-shall.txt (REQ-10… shall sentences, setext headings, sub-bullets)",
      format: "text",
      text: file("req-shall.txt"),
      requirements: ids("REQ-", 10, 15),
      nonWork: ["Purpose", "Actors", "Risks"],
      notTasks: ["Contractors may not want another login", "approves spending over 500 dollars"],
      dependency: ["REQ-11", "REQ-15"],
    },
    {
      name: "r-numbers.md (R1. style, assumptions, glossary)",
      format: "markdown",
      text: file("r-numbers.md"),
      requirements: ids("R", 1, 5),
      nonWork: ["Summary", "Assumptions", "Glossary"],
      notTasks: ["publishes its menu the evening before", "where the monthly deductions are booked"],
      dependency: ["R2", "R1"],
    },
    {
      name: "moscow.docx (MoSCoW sections, personas, acceptance criteria)",
      format: "docx",
      text: file("moscow.md"),
      requirements: ["create an account and sign in", "book a room for a time slot", "see the day's bookings", "reminder e-mail 24 hours", "block rooms for maintenance", "monthly report of room use"],
      nonWork: ["Background", "Personas", "Won't have", "Acceptance criteria"],
      notTasks: ["Equipment rental", "books rooms for the band and pays"],
      dependency: ["book a room for a time slot", "create an account"],
      outOfScope: ["Equipment rental"],
    },
    {
      name: "ledgerlite.docx (goals, features L1…L7, constraints written as plain sentences: issue 38)",
      format: "docx",
      text: file("ledgerlite.md"),
      // Every constraint is kept, with or without a "must": the GDPR, where the data lives, how treasurers sign in.
      requirements: [...ids("L", 1, 7), "falls under the GDPR", "stored in the UK or the EU", "two-factor authentication"],
      nonWork: ["Goals", "Out of scope"],
      notTasks: ["Payroll", "Gift Aid claims", "close a month in under an hour", "see where the money went"],
      dependency: ["L5", "L1"],
      outOfScope: ["Payroll", "Gift Aid claims"],
      goals: ["Treasurers close a month in under an hour instead of a day", "Trustees see where the money went without asking the treasurer"],
      independent: [["L6", "L7"], ["L6", "L1"], ["L1", "L7"]],
    },
    {
      name: "tool-library.pdf (headings and bullets, nested acceptance criteria)",
      format: "pdf",
      text: readFileSync(new URL("../api/services/scoping/fixtures/requirements.md", import.meta.url), "utf8"),
      requirements: ["sign up with an e-mail address", "confirmation e-mail", "Google account", "reset a forgotten password", "list a tool", "searchable by name", "availability for the coming two weeks", "pause a listing", "reserve an available tool", "prevent two reservations", "approve or decline a reservation", "receive a notification", "take the deposit", "deposit must be released", "keep part of the deposit", "payment data must be handled", "rate each other", "Ratings must be shown", "suspend a member", "dashboard of open disputes", "under two seconds", "WCAG 2.1 AA", "exportable and deletable"],
      nonWork: ["Overview", "Goals", "Out of scope", "Glossary"],
      notTasks: ["Delivery of tools", "A native mobile app", "Fewer tools bought"],
      dependency: ["prevent two reservations", "reserve an available tool"],
      outOfScope: ["Delivery of tools", "A native mobile app"],
    },
    {
      name: "northwind.pdf (a specification of over 50 pages, 200-odd numbered requirements)",
      format: "pdf",
      text: fiftyPageMarkdown(),
      requirements: Array.from({ length: 26 }, (_, m) => Array.from({ length: moduleSize(m) }, (_, a) => `3.${m + 1}.${a + 1}`)).flat(),
      nonWork: ["Introduction", "Purpose", "Background", "Users", "Out of scope", "Assumptions", "Glossary"],
      notTasks: ["Marketplace sellers", "Point-of-sale hardware", "stock keeping unit"],
      dependency: ["3.24.1", "3.1.1"],
      outOfScope: ["Marketplace sellers"],
    },
  ];
}
