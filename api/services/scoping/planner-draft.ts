/** A task of the built-in planner in the making (builtin-planner.ts): its requirements, criteria, milestone and place in the order. */
import type { Requirement } from "./requirements-reader.ts";
import type { Section } from "./document-sections.ts";

export interface Draft {
  title: string;
  requirements: Requirement[];
  /** The section a grouped task stands for. */
  section?: Section;
  acceptance: string[];
  milestone: number;
  tier: number;
  order: number;
}
