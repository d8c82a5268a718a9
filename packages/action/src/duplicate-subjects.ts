import type { Subject } from "./subjects.js";

/**
 * One subject per digest: the same artifact given twice (a digest and a file, two globs, a checksums line) is one
 * storage record. Keeps the first; says what was dropped, so the run's notices explain a shorter list.
 */
export function collapseDuplicateDigests(subjects: readonly Subject[]): { subjects: Subject[]; notices: string[] } {
  const first = new Map<string, Subject>();
  const notices: string[] = [];
  for (const subject of subjects) {
    const kept = first.get(subject.digest);
    if (!kept) {
      first.set(subject.digest, subject);
      continue;
    }
    const what = (s: Subject) => (s.file ? `${s.name} (${s.file})` : s.name);
    notices.push(`${subject.digest} is given twice, as ${what(kept)} and as ${what(subject)}: one storage record, named ${kept.name}`);
  }
  return { subjects: [...first.values()], notices };
}
