import { createHash, randomUUID } from 'node:crypto';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import solc from 'solc';
import type { Abi, Hex } from 'viem';

const SOURCE_PATH = new URL('./TestUsdc.sol', import.meta.url);

export interface CompiledContract {
  abi: Abi;
  bytecode: Hex;
  deployedBytecode: Hex;
}

export interface CompiledContracts {
  TestUsdc: CompiledContract;
  Multicall3: CompiledContract;
}

let compiled: CompiledContracts | undefined;

/**
 * Compiles `TestUsdc.sol` in process with solcjs (no download), once per process; the output is kept in the
 * system temp folder, keyed by the source and compiler version, so other test workers reuse it.
 * @example const { TestUsdc } = compileTestContracts();
 */
export function compileTestContracts(): CompiledContracts {
  if (compiled) return compiled;
  const source = readFileSync(SOURCE_PATH, 'utf8');
  const key = createHash('sha256').update(`${solc.version()}\n${source}`).digest('hex').slice(0, 16);
  const cachePath = join(tmpdir(), `psi-test-usdc-${key}.json`);
  if (existsSync(cachePath)) return (compiled = JSON.parse(readFileSync(cachePath, 'utf8')) as CompiledContracts);
  compiled = compile(source);
  const partial = `${cachePath}.${randomUUID()}`;
  writeFileSync(partial, JSON.stringify(compiled));
  renameSync(partial, cachePath);
  return compiled;
}

function compile(source: string): CompiledContracts {
  const input = {
    language: 'Solidity',
    sources: { 'TestUsdc.sol': { content: source } },
    settings: {
      evmVersion: 'cancun',
      optimizer: { enabled: true, runs: 200 },
      outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object'] } },
    },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input))) as SolcOutput;
  const errors = (output.errors ?? []).filter((error) => error.severity === 'error');
  if (errors.length > 0) throw new Error(`TestUsdc.sol does not compile:\n${errors.map((e) => e.formattedMessage).join('\n')}`);
  const contract = (name: keyof CompiledContracts): CompiledContract => {
    const result = output.contracts?.['TestUsdc.sol']?.[name];
    if (!result) throw new Error(`solc produced no ${name}`);
    return {
      abi: result.abi,
      bytecode: `0x${result.evm.bytecode.object}`,
      deployedBytecode: `0x${result.evm.deployedBytecode.object}`,
    };
  };
  return { TestUsdc: contract('TestUsdc'), Multicall3: contract('Multicall3') };
}

interface SolcOutput {
  errors?: { severity: string; formattedMessage: string }[];
  contracts?: Record<
    string,
    Record<string, { abi: Abi; evm: { bytecode: { object: string }; deployedBytecode: { object: string } } }>
  >;
}
