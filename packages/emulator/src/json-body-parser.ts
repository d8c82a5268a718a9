import type { FastifyInstance } from "fastify";

/**
 * Reads every request body as JSON whatever its content type says, as the service does (`curl -d` sends form
 * encoding; octokit sends empty `text/plain` bodies). An empty body is no body; text that is not JSON is a 400.
 */
export function readBodiesAsJson(app: FastifyInstance, invalidMessage: string): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", { parseAs: "string" }, (_request, body, done) => {
    const text = String(body);
    if (text.trim() === "") return done(null, undefined);
    try {
      done(null, JSON.parse(text));
    } catch {
      done(Object.assign(new Error(invalidMessage), { statusCode: 400 }), undefined);
    }
  });
}
