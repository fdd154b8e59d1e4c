/** A deliberately small suffix stripper: enough to match "plugins"/"plugin", "registering"/"register". */
export declare function stem(word: string): string;
/**
 * Content terms of a text, stemmed, in order, duplicates kept. camelCase and snake_case words
 * also contribute their parts, so `enableCors` matches "cors".
 */
export declare function terms(text: string): string[];
/**
 * Code-like names in a text, lowercased without a trailing `()`: inline code spans, scoped
 * packages (`@fastify/cors`), dotted names (`reply.send()`), calls and camelCase words.
 */
export declare function identifiers(text: string): string[];
/** Whether `id` (from {@link identifiers}) occurs in `lowerText` as a whole name. */
export declare function containsIdentifier(lowerText: string, id: string): boolean;
