/** What kind of answer a question asks for, read from its wording alone (no model). */
export type QuestionType = 'definition' | 'how-to' | 'comparison' | 'option' | 'troubleshooting' | 'yes-no' | 'other';
export interface QuestionShape {
    type: QuestionType;
    /** What a definition or option question is about ("decorator" in "What is a decorator?"). */
    topic?: string;
    /** The two things a comparison weighs ("onRequest", "preHandler hooks"). */
    sides?: [string, string];
}
/**
 * Reads the type of a question from its wording: a comparison ("difference between A and B",
 * "A vs B"), troubleshooting ("why…", an error, "doesn't work"), how-to ("how do I…", "steps
 * to…"), an option ("what does the `bodyLimit` option do?"), a definition ("what is X?"), a
 * yes/no question ("can I…?"), else other. Comparisons, definitions and options carry what they
 * are about, as written.
 */
export declare function analyzeQuestion(question: string): QuestionShape;
/** The type alone; see {@link analyzeQuestion}. */
export declare function detectQuestionType(question: string): QuestionType;
