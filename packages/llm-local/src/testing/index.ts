export * from './tiny-gguf';
