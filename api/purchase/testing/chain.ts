import { createHardhatNetworkProvider } from 'hardhat/internal/hardhat-network/provider/provider.js';
import {
  createPublicClient,
  createWalletClient,
  custom,
  defineChain,
  type Address,
  type EIP1193Provider,
  type Hex,
  type PublicClient,
} from 'viem';
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { compileTestContracts } from './compile.ts';

/** Base Sepolia's chain id: the local chain answers as Base Sepolia so the x402 terms stay those of the preview. */
export const LOCAL_CHAIN_ID = 84532;
const MULTICALL3_ADDRESS = '0xcA11bde05977b3631167028862bE2a173976CA11';
const ETHER = 10n ** 18n;

/** Fixed keys of the local chain: the deployer (mints test USDC) and the facilitator (pays gas). */
const DEPLOYER_KEY: Hex = `0x${'d1'.repeat(32)}`;
const FACILITATOR_KEY: Hex = `0x${'fa'.repeat(32)}`;

export const localChain = defineChain({
  id: LOCAL_CHAIN_ID,
  name: 'Local Base Sepolia',
  nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
  rpcUrls: { default: { http: [] } },
});

export interface LocalChain {
  provider: EIP1193Provider;
  publicClient: PublicClient;
  /** The deployed EIP-3009 test token (6 decimals, domain "USDC" version "2"). */
  usdc: Address;
  facilitatorAccount: PrivateKeyAccount;
  /** Mints test USDC (atomic units) to an address. */
  fund: (to: Address, atomic: bigint) => Promise<void>;
  balanceOf: (owner: Address) => Promise<bigint>;
}

/**
 * An in-process EVM (Hardhat's EDR) answering as chain 84532, with the test token deployed and Multicall3 in place.
 * @example const chain = await startLocalChain(); await chain.fund(payer.address, 1_000_000n);
 */
export async function startLocalChain(): Promise<LocalChain> {
  const { TestUsdc, Multicall3 } = compileTestContracts();
  const deployer = privateKeyToAccount(DEPLOYER_KEY);
  const facilitatorAccount = privateKeyToAccount(FACILITATOR_KEY);
  const provider = (await createHardhatNetworkProvider(
    {
      hardfork: 'cancun',
      chainId: LOCAL_CHAIN_ID,
      networkId: LOCAL_CHAIN_ID,
      blockGasLimit: 30_000_000,
      minGasPrice: 0n,
      automine: true,
      intervalMining: 0,
      mempoolOrder: 'priority',
      chains: new Map(),
      genesisAccounts: [DEPLOYER_KEY, FACILITATOR_KEY].map((privateKey) => ({ privateKey, balance: String(100n * ETHER) })),
      allowUnlimitedContractSize: false,
      throwOnTransactionFailures: true,
      throwOnCallFailures: true,
      allowBlocksWithSameTimestamp: false,
      enableTransientStorage: false,
      enableRip7212: false,
    },
    { enabled: false, printLineFn: () => {}, replaceLastLineFn: () => {} },
  )) as unknown as EIP1193Provider;
  const transport = custom(provider);
  const publicClient = createPublicClient({ chain: localChain, transport });
  const deployerClient = createWalletClient({ chain: localChain, transport, account: deployer });

  const deployHash = await deployerClient.deployContract({ abi: TestUsdc.abi, bytecode: TestUsdc.bytecode });
  const { contractAddress } = await publicClient.waitForTransactionReceipt({ hash: deployHash });
  if (!contractAddress) throw new Error('the test token did not deploy');
  await provider.request({ method: 'hardhat_setCode', params: [MULTICALL3_ADDRESS, Multicall3.deployedBytecode] } as never);

  return {
    provider,
    publicClient,
    usdc: contractAddress,
    facilitatorAccount,
    fund: async (to, atomic) => {
      const hash = await deployerClient.writeContract({ address: contractAddress, abi: TestUsdc.abi, functionName: 'mint', args: [to, atomic] });
      await publicClient.waitForTransactionReceipt({ hash });
    },
    balanceOf: async (owner) =>
      (await publicClient.readContract({ address: contractAddress, abi: TestUsdc.abi, functionName: 'balanceOf', args: [owner] })) as bigint,
  };
}
