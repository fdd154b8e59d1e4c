export { ReadPool, PooledExtractiveAnswerGenerator, type ReadPoolOptions } from './read-pool';
