export {
  LocalLlm,
  type LocalChatMessage,
  type LocalGenerateOptions,
  type LocalLlmOptions,
} from './local-llm';
export {
  inspectModelFile,
  LocalModelError,
  type LocalModelFileInfo,
  type LocalModelProblem,
} from './model-file';
export { LocalLlmBusyError, SequenceSlots } from './sequence-slots';
export {
  chooseSequenceCount,
  KV_BYTES_PER_TOKEN_UPPER_BOUND,
  type SequenceCount,
  type SequenceCountInput,
} from './sequence-count';
export {
  GGUF_MAGIC,
  GgufFormatError,
  GgufTruncatedError,
  readGgufHeader,
  type GgufHeader,
  type GgufTensorInfo,
  type GgufValue,
} from './gguf.format';
export {
  DEFAULT_LOCAL_MODEL,
  LOCAL_MODEL_PROFILES,
  estimateRamBytes,
  localModelProfile,
  localModelUrl,
  type LocalModelProfile,
  type PublishedQuality,
} from './model-catalog';
export { pullLocalModel, sha256File, type PullLocalModelOptions, type PulledLocalModel } from './pull-model';
