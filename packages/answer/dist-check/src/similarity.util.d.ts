/** The distinct content words of a text. */
export declare function contentTerms(text: string): Set<string>;
/** |A ∩ B| / |A ∪ B|; 0 when both are empty. */
export declare function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number;
/**
 * |A ∩ B| / max(|A|, |B|): the share of the longer text's content words that the other has too.
 * Stricter than Dice on a short question against a long one: "password?" against "reset password"
 * is 0.5, and so is "reset password for admin accounts".
 */
export declare function termOverlap(a: ReadonlySet<string>, b: ReadonlySet<string>): number;
