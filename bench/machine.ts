import { cpus, freemem, release, totalmem } from 'node:os';

/** The machine a run was made on, so figures from different machines are not compared blindly. */
export interface MachineDescription {
  cpuModel: string;
  cores: number;
  memoryGiB: number;
  freeMemoryGiB: number;
  os: string;
  nodeVersion: string;
}

export function describeMachine(): MachineDescription {
  const processors = cpus();
  return {
    cpuModel: processors[0]?.model.trim() ?? 'unknown',
    cores: processors.length,
    memoryGiB: Math.round((totalmem() / 1024 ** 3) * 10) / 10,
    freeMemoryGiB: Math.round((freemem() / 1024 ** 3) * 10) / 10,
    os: `${process.platform} ${release()}`,
    nodeVersion: process.version,
  };
}

export function machineLine(machine: MachineDescription): string {
  return `${machine.cpuModel}, ${machine.cores} cores, ${machine.memoryGiB} GiB, ${machine.os}, Node ${machine.nodeVersion}`;
}
