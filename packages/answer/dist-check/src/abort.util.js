"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.abortedError = abortedError;
exports.throwIfAborted = throwIfAborted;
const core_1 = require("@kbqa/core");
/** The one way both generators report a caller's abort: KbqaError('ABORTED'). */
function abortedError() {
    return new core_1.KbqaError('ABORTED', 'Answer generation was aborted by the caller');
}
function throwIfAborted(signal) {
    if (signal?.aborted)
        throw abortedError();
}
//# sourceMappingURL=abort.util.js.map