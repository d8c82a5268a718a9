import type { z } from "zod";
import { ShiplogError } from "@shiplog/client";
import { toFieldIssues } from "@shiplog/client/schemas";

/** One thing wrong with an argument of a steering call. */
export interface UsageIssue {
  /** The argument at fault, as a path: `rule.rate`, `repo`, `fixture.orgs[0].login`. */
  argument: string;
  /** The rule it breaks: `maximum 1`, `required`, `a repository of the fixture`. */
  rule: string;
  /** What is wrong, for people (never the argument's value: a fixture may hold real tokens). */
  message: string;
}

/**
 * A steering API of the emulator (fixture, faults, imports, activity, clocks and intervals) was called wrongly:
 * a bug in the test or demo driving it, not an answer of the service. `code` is stable: `emulator_usage`.
 */
export class EmulatorUsageError extends ShiplogError {
  /** The call that refused, such as `startEmulator` or `faults.add`. */
  readonly operation: string;
  readonly issues: readonly UsageIssue[];

  constructor(operation: string, issues: UsageIssue | readonly UsageIssue[]) {
    const list = Array.isArray(issues) ? (issues as readonly UsageIssue[]) : [issues as UsageIssue];
    super("emulator_usage", `${operation}: ${list.map((i) => `${i.argument} ${i.message} [rule: ${i.rule}]`).join("; ")}`);
    this.operation = operation;
    this.issues = list;
  }

  /** Turns a zod failure into usage issues under `argument` (`fixture` → `fixture.orgs[0].login`). */
  static fromZod(operation: string, argument: string, error: z.ZodError): EmulatorUsageError {
    return new EmulatorUsageError(
      operation,
      toFieldIssues(error).map((issue) => ({
        argument: issue.field === "(body)" ? argument : `${argument}.${issue.field}`.replace(".[", "["),
        rule: issue.rule,
        message: issue.message,
      })),
    );
  }
}
