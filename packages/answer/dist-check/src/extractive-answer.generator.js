"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.ExtractiveAnswerGenerator = exports.MIN_PASSAGE_COVERAGE = exports.SEE_ALSO = exports.NOT_COVERED_ANSWER = void 0;
exports.isDefining = isDefining;
exports.cite = cite;
const text_1 = require("@kbqa/text");
const abort_util_1 = require("./abort.util");
const follow_up_util_1 = require("./follow-up.util");
const question_type_util_1 = require("./question-type.util");
const terms_util_1 = require("./terms.util");
/** What the extractive generator answers when the sources do not cover the question. */
exports.NOT_COVERED_ANSWER = "I couldn't find this in the documentation.";
/** Opens the list of closest pages that follows {@link NOT_COVERED_ANSWER} when there are sources. */
exports.SEE_ALSO = 'You may want to read:';
/**
 * Default floor of the best passage's query-term coverage (0-1): the share of the question's
 * weighted content terms and identifiers that the best source (its text, title and headings)
 * contains. Below it no passage is about the question and the answer is
 * {@link NOT_COVERED_ANSWER} plus the closest pages. It measures the passages, not the
 * retriever's relevance score, so recalibrating that score does not move it.
 */
exports.MIN_PASSAGE_COVERAGE = 0.5;
const BOILERPLATE = /^(?:see|check|refer to|read more|for more (?:info|information|details)|click|the following|as follows|for example[:,]?$|example:?$|note:?$)|\b(?:see|check) (?:here|below|above|the docs?)\b/i;
const ASKS_HOW = /\b(?:how|example|examples|snippet|syntax|show me|write|configure|set ?up|install)\b/i;
/** Words that frame a question of a type without naming its subject. */
const FRAME_WORDS = {
    definition: ['mean', 'meaning', 'purpose', 'concept', 'definition', 'explain', 'describe', 'idea'],
    option: ['option', 'setting', 'flag', 'parameter', 'mean', 'purpose', 'explain', 'describe'],
    comparison: ['difference', 'differ', 'different', 'compare', 'comparison', 'versus', 'vs', 'between', 'instead', 'rather', 'better'],
    'how-to': ['set', 'setup', 'step', 'steps', 'best', 'right', 'recommended', 'correct', 'proper'],
    troubleshooting: ['why', 'happen', 'happens'],
    'yes-no': ['possible'],
    other: [],
};
const FRAME_STEMS = Object.fromEntries(Object.entries(FRAME_WORDS).map(([type, words]) => [type, new Set(words.map(terms_util_1.stem))]));
/**
 * "X is / X are / X lets you / X provides …": the subject before the verb names the topic.
 * Matched on the sentence without code and emphasis marks, lowercased.
 */
const DEFINING = /^(?:an?\s+|the\s+)?([^,;:()]{1,80}?)\s+(?:is|are|lets|let|provides?|allows?|enables?|refers?\s+to|means?|represents?|customizes?|consists?\s+of|can\s+be|gives?|extends?|helps?)\b/;
const CONTRAST = /\b(?:before|after|whereas|while|unlike|instead|but|than|only|always|never|differ\w*|both|however|rather)\b/i;
const NOT_A_SUBJECT = /^(?:if|when|while|in|on|at|by|for|with|to|as|after|before|once|since|there|this|that|it|these|those|you|we|note)\b/;
/**
 * The embedded default generator: no model, answers with the most relevant sentences of the
 * retrieved sources, each followed by its citation `[n]`, shaped by the question's type
 * ({@link analyzeQuestion}):
 *
 * - definition / option: the topic's own page (its title or path names the topic) and section
 *   over pages where the topic is a qualifier, its defining sentence ("X is …") first;
 * - how-to: the sentences of the section whose heading matches, in document order, with its
 *   first code block;
 * - comparison: sentences that name both sides first;
 * - otherwise: sentences by coverage of the question's distinct content terms (identifiers and
 *   option names weigh more) and their position in their section.
 *
 * Markup that is not prose ({@link cleanMarkup}) never reaches the answer. When the best source
 * covers too little of the question ({@link MIN_PASSAGE_COVERAGE}) the answer is
 * {@link NOT_COVERED_ANSWER} and a list of the closest pages. Ignores `temperature`,
 * `systemPrompt`, `additionalContext` and `history` (history only matters to
 * {@link condenseQuestion}).
 *
 * Abort: when `signal` aborts, the iterator throws KbqaError('ABORTED') before the next piece;
 * the pieces already yielded are the partial answer.
 */
class ExtractiveAnswerGenerator {
    id = 'extractive';
    maxSentences;
    maxChars;
    maxCodeChars;
    minRelevance;
    minTopicality;
    minCoverage;
    constructor(options = {}) {
        this.maxSentences = options.maxSentences ?? 4;
        this.maxChars = options.maxChars ?? 700;
        this.maxCodeChars = options.maxCodeChars ?? 1500;
        this.minRelevance = options.minRelevance ?? 0.2;
        this.minTopicality = options.minTopicality ?? 0.35;
        this.minCoverage = options.minCoverage ?? exports.MIN_PASSAGE_COVERAGE;
    }
    async *generate(request) {
        (0, abort_util_1.throwIfAborted)(request.signal);
        const pieces = this.compose(request.question, request.sources).flatMap(streamPieces);
        for (const [index, piece] of pieces.entries()) {
            // A macrotask between pieces lets a client disconnect be noticed mid-answer.
            if (index > 0)
                await new Promise((resolve) => setImmediate(resolve));
            (0, abort_util_1.throwIfAborted)(request.signal);
            yield piece;
        }
    }
    /**
     * Keeps the question, except for a short follow-up leaning on the previous turn ("what about
     * its options?", "and in v5?"): then key terms of the last history prompt are prepended.
     * See {@link condenseFollowUp}. Never throws, like the OpenAI generator's (nothing to abort here).
     */
    condenseQuestion(question, history, _signal) {
        return Promise.resolve((0, follow_up_util_1.condenseFollowUp)(question, history));
    }
    /** Extractive summary: best sentences by in-document term frequency and position, in document order. */
    summarize(text, maxChars, signal) {
        (0, abort_util_1.throwIfAborted)(signal);
        return Promise.resolve((0, text_1.extractiveSummary)(text, maxChars));
    }
    /**
     * The answer as the pieces that are streamed. A curated source (a taught answer, always first)
     * is the answer: its text as the operator wrote it, cited, and nothing picked from other pages
     * after it, which could only dilute or contradict it.
     */
    compose(question, sources) {
        const curated = sources[0]?.curated ? sources[0] : undefined;
        if (curated && curated.content.trim())
            return [citeCurated(curated)];
        const shape = (0, question_type_util_1.analyzeQuestion)(question);
        const scored = this.score(question, sources, shape);
        if (!scored)
            return [exports.NOT_COVERED_ANSWER];
        if (scored.coverage < this.minCoverage)
            return notCovered(sources);
        let chosen;
        if ((shape.type === 'definition' || shape.type === 'option') && shape.topic)
            chosen = this.define(scored, shape.topic, shape.type);
        else if (shape.type === 'how-to')
            chosen = this.steps(scored, question);
        else if (shape.type === 'comparison' && shape.sides)
            chosen = this.compare(scored, shape.sides);
        chosen ??= this.relevant(scored, question);
        return chosen.length === 0 ? notCovered(sources) : render(chosen);
    }
    /** Sentences by score, without near duplicates, within the sentence and character budgets. */
    fill(chosen, ranked, floor) {
        let chars = chosen.reduce((n, c) => n + c.unit.text.length, 0);
        for (const candidate of ranked) {
            if (chosen.length >= this.maxSentences || candidate.score < floor)
                break;
            if (chosen.includes(candidate))
                continue;
            if (chosen.length > 0 && chars + candidate.unit.text.length > this.maxChars)
                continue;
            if (chosen.some((c) => nearDuplicate(c, candidate)))
                continue;
            chosen.push(candidate);
            chars += candidate.unit.text.length;
        }
        return chosen;
    }
    usable(c) {
        return c.unit.kind === 'sentence' && c.bodyMatched && c.relevance >= this.minRelevance;
    }
    /** The general rule: best sentences, grouped by source (best source first), in document order. */
    relevant(scored, question) {
        const ranked = scored.candidates.filter((c) => this.usable(c)).sort((a, b) => b.score - a.score);
        const best = ranked[0];
        if (!best)
            return [];
        const chosen = this.fill([], ranked, best.score * 0.5);
        const code = ASKS_HOW.test(question) ? this.pickCode(scored.candidates, chosen) : undefined;
        return arrange(chosen, code, undefined);
    }
    /**
     * Definition and option questions: the topic's own page and section over pages where the topic
     * only qualifies something else ("microservices X"), and a defining sentence first.
     */
    define(scored, topic, type) {
        const frame = FRAME_STEMS[type];
        const topicTerms = new Set((0, terms_util_1.terms)(topic).filter((t) => !frame.has(t)));
        const topicIds = (0, terms_util_1.identifiers)(topic);
        if (topicTerms.size === 0 && topicIds.length === 0)
            return undefined;
        const pageFit = new Map();
        const ranked = [];
        for (const c of scored.candidates) {
            if (c.unit.kind !== 'sentence')
                continue;
            let page = pageFit.get(c.sourceIndex);
            if (page === undefined) {
                page = fitOfName(c.source, topicTerms);
                pageFit.set(c.sourceIndex, page);
            }
            const heading = c.unit.heading.toLowerCase();
            const ownSection = sameTerms(new Set((0, terms_util_1.terms)(c.unit.heading)), topicTerms) || topicIds.some((id) => (0, terms_util_1.containsIdentifier)(heading, id));
            const names = namesTopic(c, topicTerms, topicIds);
            // An option's description often omits its name: the heading names it.
            if (!names && !(ownSection && c.sectionIndex < 2))
                continue;
            const defining = (names && isDefining(c.unit.text, topicTerms, topicIds)) || (ownSection && c.sectionIndex === 0);
            const base = Math.max(c.score, this.minRelevance * quality(c.unit));
            const score = base * page * (ownSection ? 1.5 : 1) * (defining ? 2.5 : 1);
            ranked.push({ c, score, defining });
        }
        ranked.sort((a, b) => b.score - a.score);
        const lead = ranked[0];
        if (!lead)
            return undefined;
        // The lead, then what follows it in its paragraph and section, which explains it further.
        const chosen = [lead.c];
        const after = scored.candidates.filter((c) => c.unit.kind === 'sentence' &&
            c.sourceIndex === lead.c.sourceIndex &&
            c.unit.heading === lead.c.unit.heading &&
            c.unit.position > lead.c.unit.position &&
            c.unit.position <= lead.c.unit.position + 3 &&
            quality(c.unit) >= 0.6);
        this.fill(chosen, after.slice(0, 2), 0);
        const others = scored.candidates.filter((c) => this.usable(c)).sort((a, b) => b.score - a.score);
        const top = others[0];
        if (top)
            this.fill(chosen, others, top.score * 0.6);
        return arrange(chosen, undefined, lead.c);
    }
    /** How-to questions: the section whose heading matches, in document order, with its first code block. */
    steps(scored, question) {
        const sections = new Map();
        for (const c of scored.candidates) {
            const key = `${c.sourceIndex}\u0000${c.unit.heading}`;
            let section = sections.get(key);
            if (!section) {
                section = { fit: headingFit(scored, c), best: 0, units: [] };
                sections.set(key, section);
            }
            section.units.push(c);
            if (c.unit.kind === 'sentence')
                section.best = Math.max(section.best, c.score);
        }
        // Among matching headings, the better retrieved source (a guide before a type reference) wins.
        const sectionRank = (s) => s.fit + s.best + 0.3 * (1 - (s.units[0]?.sourceIndex ?? 0) / Math.max(1, sources));
        const sources = scored.candidates.reduce((n, c) => Math.max(n, c.sourceIndex + 1), 0);
        let pick;
        for (const section of sections.values()) {
            if (section.fit < HOWTO_SECTION_FIT || section.best <= 0)
                continue;
            if (!pick || sectionRank(section) > sectionRank(pick))
                pick = section;
        }
        if (!pick)
            return undefined;
        const chosen = [];
        let chars = 0;
        let code;
        for (const c of pick.units) {
            if (c.unit.kind === 'code') {
                if (!code && c.unit.text.length <= this.maxCodeChars)
                    code = c;
                continue;
            }
            if (chosen.length >= this.maxSentences || quality(c.unit) < 0.5)
                continue;
            if (chosen.length > 0 && chars + c.unit.text.length > this.maxChars)
                continue;
            chosen.push(c);
            chars += c.unit.text.length;
        }
        if (chosen.length === 0)
            return undefined;
        // A code block far below the sentences shown would read as unrelated; keep it when it is near.
        const last = chosen[chosen.length - 1];
        if (code && code.unit.position > last.unit.position + 3 && !ASKS_HOW.test(question))
            code = undefined;
        return arrange(chosen, code, chosen[0]);
    }
    /** Comparisons: sentences naming both sides first, then the best about each side. */
    compare(scored, sides) {
        const [a, b] = sides.map(sideKeys);
        const sentences = scored.candidates.filter((c) => c.unit.kind === 'sentence' && c.relevance > 0);
        // An enumeration ("onRequest, onResponse, preParsing, …") names both sides and compares nothing.
        const weight = (c) => c.score * ((c.unit.text.match(/,/g)?.length ?? 0) >= 4 ? 0.4 : 1) * (CONTRAST.test(c.unit.text) ? 1.3 : 1);
        const both = sentences
            .filter((c) => names(c, a) && names(c, b))
            .sort((x, y) => weight(y) - weight(x));
        const bestOf = (side) => sentences.filter((c) => names(c, side)).sort((x, y) => y.score - x.score)[0];
        const lead = both[0];
        const chosen = [];
        if (lead)
            this.fill(chosen, both.slice(0, 2), 0);
        for (const c of [bestOf(a), bestOf(b)])
            if (c && chosen.length < 2)
                this.fill(chosen, [c], 0);
        if (chosen.length === 0)
            return undefined;
        return arrange(chosen, undefined, chosen[0]);
    }
    pickCode(candidates, chosen) {
        let pick;
        let pickScore = 0;
        for (const c of candidates) {
            if (c.unit.kind !== 'code' || c.unit.text.length > this.maxCodeChars || !c.bodyMatched)
                continue;
            // Code right after a chosen sentence is usually the example that sentence introduces.
            const introduced = chosen.some((s) => follows(s, c));
            const floor = introduced ? this.minRelevance / 2 : this.minRelevance;
            if (c.relevance < floor)
                continue;
            const score = c.score + (introduced ? 0.25 : 0);
            if (score > pickScore) {
                pick = c;
                pickScore = score;
            }
        }
        return pick;
    }
    score(question, sources, shape) {
        const candidates = [];
        const sourceTerms = [];
        const sourceLower = [];
        sources.forEach((source, sourceIndex) => {
            const sectionCounts = new Map();
            const all = new Set((0, terms_util_1.terms)(source.title));
            const units = (0, text_1.splitMarkdownUnits)((0, text_1.cleanMarkup)(source.content));
            for (const unit of units) {
                const unitTerms = (0, terms_util_1.terms)(unit.text);
                const headingTerms = new Set((0, terms_util_1.terms)(`${unit.heading} ${source.title}`));
                for (const t of unitTerms)
                    all.add(t);
                for (const t of headingTerms)
                    all.add(t);
                const sectionIndex = sectionCounts.get(unit.heading) ?? 0;
                if (unit.kind === 'sentence')
                    sectionCounts.set(unit.heading, sectionIndex + 1);
                candidates.push({
                    unit,
                    sourceIndex,
                    source,
                    terms: unitTerms,
                    termSet: new Set(unitTerms),
                    headingTerms,
                    lower: unit.text.toLowerCase(),
                    sectionIndex,
                    relevance: 0,
                    bodyMatched: false,
                    score: 0,
                });
            }
            sourceTerms.push(all);
            sourceLower.push(`${source.title}\n${source.content}`.toLowerCase());
        });
        const frame = FRAME_STEMS[shape.type];
        const queryTerms = [...new Set((0, terms_util_1.terms)(question))].filter((t) => !frame.has(t));
        const queryIds = (0, terms_util_1.identifiers)(question);
        if (candidates.length === 0 || (queryTerms.length === 0 && queryIds.length === 0))
            return undefined;
        const df = new Map();
        for (const c of candidates)
            for (const t of c.termSet)
                df.set(t, (df.get(t) ?? 0) + 1);
        const n = candidates.length;
        // BM25's idf: a term the sources never use weighs most, so an off-topic question covers little.
        const idf = (t) => {
            const d = df.get(t) ?? 0;
            return Math.log(1 + (n - d + 0.5) / (d + 0.5));
        };
        const weights = new Map(queryTerms.map((t) => [t, idf(t)]));
        const maxWeight = Math.max(idf(''), ...weights.values());
        const idWeight = 1.5 * maxWeight;
        const total = [...weights.values()].reduce((a, b) => a + b, 0) + idWeight * queryIds.length;
        const bigrams = pairs((0, terms_util_1.terms)(question).filter((t) => !frame.has(t)));
        const lowerAll = sourceLower.join('\n');
        let found = 0;
        for (const [t, w] of weights)
            if (df.has(t))
                found += w;
        for (const id of queryIds)
            if ((0, terms_util_1.containsIdentifier)(lowerAll, id))
                found += idWeight;
        if (found / total < this.minTopicality)
            return undefined;
        let coverage = 0;
        sourceTerms.forEach((all, i) => {
            let covered = 0;
            for (const [t, w] of weights)
                if (all.has(t))
                    covered += w;
            for (const id of queryIds)
                if ((0, terms_util_1.containsIdentifier)(sourceLower[i] ?? '', id))
                    covered += idWeight;
            coverage = Math.max(coverage, covered / total);
        });
        const manyTerms = queryTerms.length + queryIds.length >= 3;
        for (const c of candidates) {
            let matched = 0;
            let body = 0;
            let distinct = 0;
            for (const [t, w] of weights) {
                if (c.termSet.has(t)) {
                    body += w;
                    distinct++;
                }
                else if (c.headingTerms.has(t))
                    matched += 0.5 * w;
            }
            for (const id of queryIds) {
                if ((0, terms_util_1.containsIdentifier)(c.lower, id)) {
                    body += idWeight;
                    distinct++;
                }
            }
            matched += body;
            const phrase = bigrams.length === 0 ? 0 : countPhrases(c.terms, bigrams) / bigrams.length;
            c.relevance = Math.min(1, (matched / total) * (1 + 0.25 * phrase));
            c.bodyMatched = body > 0;
            const rank = 1 - c.sourceIndex / Math.max(1, sources.length);
            const sourceScore = Math.min(1, Math.max(0, c.source.score));
            // One shared word among several asked about is weak evidence: "difference" alone is not an answer.
            const single = manyTerms && distinct === 1 ? 0.7 : 1;
            // Sections open with what they are about; later sentences are details.
            const position = c.unit.kind === 'sentence' ? 1 + 0.2 / (1 + c.sectionIndex) : 1;
            c.score =
                c.relevance * quality(c.unit) * single * position * (1 + 0.25 * sourceScore + 0.25 * rank);
        }
        return { candidates, weights, ids: queryIds, idWeight, total, coverage };
    }
}
exports.ExtractiveAnswerGenerator = ExtractiveAnswerGenerator;
/** Least heading match (0-1) for a how-to answer to quote a section's steps. */
const HOWTO_SECTION_FIT = 0.5;
/** Share of the question's weight that a unit's heading (else the page title) names. */
function headingFit(scored, c) {
    const heading = c.unit.heading || c.source.title;
    const headingTerms = new Set((0, terms_util_1.terms)(heading));
    const lower = heading.toLowerCase();
    let fit = 0;
    for (const [t, w] of scored.weights)
        if (headingTerms.has(t))
            fit += w;
    for (const id of scored.ids)
        if ((0, terms_util_1.containsIdentifier)(lower, id))
            fit += scored.idWeight;
    return fit / scored.total;
}
/** How a source's title or path names the topic: its own page 1.5, a qualifier of it 0.85, else 1. */
function fitOfName(source, topicTerms) {
    const path = (source.link.split(/[?#]/)[0] ?? '').replace(/\/+$/, '');
    const last = (path.split('/').pop() ?? '').replace(/\.\w+$/, '').replace(/[-_]+/g, ' ');
    let fit = 1;
    for (const name of [source.title, last]) {
        const nameTerms = new Set((0, terms_util_1.terms)(name));
        if (sameTerms(nameTerms, topicTerms))
            return 1.5;
        if (nameTerms.size > topicTerms.size && [...topicTerms].every((t) => nameTerms.has(t)))
            fit = 0.85;
    }
    return fit;
}
function sameTerms(a, b) {
    return a.size > 0 && a.size === b.size && [...a].every((t) => b.has(t));
}
function namesTopic(c, topicTerms, topicIds) {
    if (topicIds.some((id) => (0, terms_util_1.containsIdentifier)(c.lower, id)))
        return true;
    return topicTerms.size > 0 && [...topicTerms].every((t) => c.termSet.has(t));
}
/** Whether a sentence defines the topic: "X is …", "X are …", "X lets you …", "X provides …". */
function isDefining(sentence, topicTerms, topicIds = []) {
    const plain = sentence.replace(/[`*_]/g, '').toLowerCase();
    const m = DEFINING.exec(plain);
    const subject = m?.[1]?.trim();
    if (!subject || NOT_A_SUBJECT.test(subject))
        return false;
    const subjectTerms = (0, terms_util_1.terms)(subject);
    if (subjectTerms.length > topicTerms.size + 3)
        return false;
    if (topicIds.some((id) => (0, terms_util_1.containsIdentifier)(subject, id)))
        return true;
    return topicTerms.size > 0 && [...topicTerms].every((t) => subjectTerms.includes(t));
}
/** What names a side of a comparison: its identifiers, else its first content word. */
function sideKeys(side) {
    const ids = (0, terms_util_1.identifiers)(side);
    return { ids, head: ids.length > 0 ? undefined : (0, terms_util_1.terms)(side)[0] };
}
function names(c, side) {
    if (side.ids.some((id) => (0, terms_util_1.containsIdentifier)(c.lower, id)))
        return true;
    return side.head !== undefined && c.termSet.has(side.head);
}
/**
 * Answer order: the lead first (when given) with the rest of its source after it, then the other
 * sources by their best sentence; document order inside a source. A code block goes right after
 * the sentence introducing it, else after its source's sentences.
 */
function arrange(chosen, code, lead) {
    const groupRank = new Map();
    chosen.forEach((c, i) => {
        if (!groupRank.has(c.sourceIndex))
            groupRank.set(c.sourceIndex, i);
    });
    if (lead)
        groupRank.set(lead.sourceIndex, -1);
    const out = [...chosen];
    if (code) {
        if (!groupRank.has(code.sourceIndex))
            groupRank.set(code.sourceIndex, chosen.length);
        out.push(code);
    }
    const order = (c) => {
        if (c === lead)
            return -1;
        if (c === code && !chosen.some((s) => follows(s, c)))
            return Number.MAX_SAFE_INTEGER;
        return c.unit.position;
    };
    const rank = (c) => groupRank.get(c.sourceIndex) ?? 0;
    return out.sort((a, b) => rank(a) - rank(b) || order(a) - order(b));
}
/** Most pages listed after {@link NOT_COVERED_ANSWER}. */
const SEE_ALSO_PAGES = 3;
/** {@link NOT_COVERED_ANSWER}, then the closest pages (sources in retrieval order, one per link). */
function notCovered(sources) {
    const seen = new Set();
    const pages = [];
    for (const s of sources) {
        if (!s.link || seen.has(s.link) || pages.length >= SEE_ALSO_PAGES)
            continue;
        seen.add(s.link);
        const title = (s.title.trim() || s.link).replace(/[[\]]/g, '');
        pages.push(`[${title}](${s.link})`);
    }
    if (pages.length === 0)
        return [exports.NOT_COVERED_ANSWER];
    return [exports.NOT_COVERED_ANSWER, `\n\n${exports.SEE_ALSO} ${pages.join(', ')}.`];
}
const WORDS_PER_PIECE = 6;
/** Prose streams a few words at a time; a code block goes out whole. */
function streamPieces(text) {
    if (text.includes('```') || text.includes('~~~'))
        return [text];
    const words = text.match(/\s*\S+/g) ?? [text];
    const out = [];
    for (let i = 0; i < words.length; i += WORDS_PER_PIECE)
        out.push(words.slice(i, i + WORDS_PER_PIECE).join(''));
    const rest = text.slice(out.join('').length);
    if (rest)
        out.push(rest);
    return out;
}
function follows(sentence, code) {
    return sentence.sourceIndex === code.sourceIndex && sentence.unit.position === code.unit.position - 1;
}
/** Penalties for sentences that read badly on their own: very short, boilerplate, run-on. */
function quality(unit) {
    if (unit.kind === 'code')
        return 1;
    const words = unit.text.split(/\s+/).filter((w) => /[\p{L}\p{N}]/u.test(w)).length;
    let q = 1;
    // "Default: `1048576`" is short but says something; "Usage" does not.
    if (words < 4)
        q *= /`|\d/.test(unit.text) ? 0.8 : 0.4;
    else if (words < 7)
        q *= 0.8;
    if (unit.text.length > 350)
        q *= 0.8;
    if (BOILERPLATE.test(unit.text))
        q *= 0.5;
    if (unit.text.endsWith(':'))
        q *= 0.75;
    // A piece cut by a chunk boundary ("request](./Request.md) object, …") does not read alone.
    if (/^[a-z]/.test(unit.text) || unit.text.includes(']('))
        q *= 0.5;
    return q;
}
function pairs(sequence) {
    const out = [];
    for (let i = 0; i + 1 < sequence.length; i++) {
        const a = sequence[i];
        const b = sequence[i + 1];
        if (a !== b)
            out.push([a, b]);
    }
    return out;
}
function countPhrases(sequence, bigrams) {
    const present = new Set();
    for (let i = 0; i + 1 < sequence.length; i++)
        present.add(`${sequence[i]} ${sequence[i + 1]}`);
    return bigrams.filter(([a, b]) => present.has(`${a} ${b}`)).length;
}
function nearDuplicate(a, b) {
    if (a.lower === b.lower)
        return true;
    if (a.termSet.size === 0 || b.termSet.size === 0)
        return false;
    let shared = 0;
    for (const t of a.termSet)
        if (b.termSet.has(t))
            shared++;
    return shared / (a.termSet.size + b.termSet.size - shared) >= 0.8;
}
function render(chosen) {
    const pieces = [];
    const citedSources = new Set(chosen.filter((c) => c.unit.kind === 'sentence').map((c) => c.sourceIndex));
    chosen.forEach((c, i) => {
        const previous = chosen[i - 1];
        const next = chosen[i + 1];
        if (c.unit.kind === 'code') {
            const intro = citedSources.has(c.sourceIndex) ? '' : `Example [${c.source.n}]:\n\n`;
            pieces.push(`${pieces.length > 0 ? '\n\n' : ''}${intro}${c.unit.text}`);
            return;
        }
        const sameParagraph = previous !== undefined && previous.unit.kind === 'sentence' && previous.sourceIndex === c.sourceIndex;
        const separator = pieces.length === 0 ? '' : sameParagraph ? ' ' : '\n\n';
        const introducesNext = next?.unit.kind === 'code' && follows(c, next);
        pieces.push(separator + cite(c.unit.text, c.source.n, introducesNext));
    });
    return pieces;
}
/**
 * A curated answer verbatim, its citation after it: on a line of its own after a code block or
 * list, else after the final full stop (the answer must start with exactly what was taught).
 */
function citeCurated(source) {
    const text = source.content.trim();
    const blockEnd = /(?:```|~~~)$/.test(text) || /\n\s*(?:[-*+]|\d+\.)\s[^\n]*$/.test(text);
    return `${text}${blockEnd ? '\n\n' : ' '}[${source.n}]`;
}
/** Puts ` [n]` before the sentence's final punctuation ("Sets the status code [1]."), adding a full stop when there is none. */
function cite(sentence, n, introducesCode = false) {
    let text = sentence.trim();
    // A sentence introducing an example that is not shown should not end in a colon.
    if (text.endsWith(':') && !introducesCode)
        text = `${text.slice(0, -1)}.`;
    const end = /[.!?:;]+$/.exec(text);
    if (end)
        return `${text.slice(0, end.index)} [${n}]${end[0]}`;
    // A list item or table row without a full stop still reads as a sentence in the answer.
    return `${text} [${n}].`;
}
//# sourceMappingURL=extractive-answer.generator.js.map