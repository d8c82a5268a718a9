// The permission statements of sections 4.1 to 4.5 (and 4.4b) of the spec: what each endpoint's own section says
// it needs. Each statement is part of its endpoint's registry entry; this module gives their shape and builders.
import type { HttpMethod } from "../transport/pipeline.js";
import type { AccessLevel, AppTokenType, PermissionName } from "./permission-matrix.js";

/** One permission an endpoint statement of section 4 names. */
export interface StatementGrant {
  permission: PermissionName;
  access: AccessLevel;
  /** Set when the statement limits the grant to fine-grained personal access tokens. */
  fineGrainedOnly?: boolean;
}

/** The permission statement of section 4 for one endpoint, as its registry entry holds it. */
export interface Statement {
  /** `allOf`: every grant is needed; `anyOf`: one of them suffices. */
  combine: "allOf" | "anyOf";
  /** Empty when the endpoint needs no fine-grained permission (or, for classic-only endpoints, none exists). */
  grants: readonly StatementGrant[];
  /** App token types the statement accepts; empty for the classic-only endpoints. */
  tokenTypes: readonly AppTokenType[];
  /** Whether fine-grained personal access tokens are accepted. */
  fineGrained: boolean;
  /**
   * Whether a personal access token (classic) is accepted. False where the section names the token types and
   * classic is not among them (4.1, 4.2); true where it does not restrict them (5.1 governs classic by scopes).
   */
  classic: boolean;
  source: string;
  note?: string;
}

/** A statement with the endpoint it is about. */
export interface EndpointStatement extends Statement {
  method: HttpMethod;
  path: string;
}

/** A statement of `source` (`4.2 Git tags`) naming `grants`; both app token types and fine-grained unless `more` says. */
export function statement(
  source: string,
  grants: readonly StatementGrant[],
  more: Partial<Pick<Statement, "combine" | "tokenTypes" | "fineGrained" | "classic" | "note">> = {},
): Statement {
  return {
    combine: more.combine ?? "allOf",
    grants,
    tokenTypes: more.tokenTypes ?? ["UAT", "IAT"],
    fineGrained: more.fineGrained ?? true,
    classic: more.classic ?? true,
    source,
    ...(more.note === undefined ? {} : { note: more.note }),
  };
}

/** Endpoints only a personal access token (classic) may call (4.3, 4.4b). */
export const CLASSIC_ONLY = { tokenTypes: [] as readonly AppTokenType[], fineGrained: false };
/** 4.1 and 4.2 name their token types: app user, app installation and fine-grained personal access tokens. */
export const NO_CLASSIC = { classic: false };
export const UAT_ONLY: readonly AppTokenType[] = ["UAT"];

/** Shorthand for a grant list of one permission at one level. */
export function needs(permission: PermissionName, access: AccessLevel): readonly StatementGrant[] {
  return [{ permission, access }];
}
