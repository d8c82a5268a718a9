// GENERATED from src/schemas/ by scripts/generate-model.mjs (the tests check it is current). Do not edit.

/** The error body every non-2xx answer carries. */
export type ServiceErrorBody = {
  message: string | Record<string, unknown>;
  documentation_url?: string;
  errors?: {
    resource?: string;
    field?: string;
    code?: string;
    message?: string;
  }[];
  status?: string;
};
