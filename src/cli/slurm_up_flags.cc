#include "cli/slurm_up_flags.h"

#include <filesystem>

namespace weft::cli {

CLI::Option* AddSlurmUpFlags(CLI::App* cmd, uint32_t& nodes, SlurmUpFlags& flags) {
  // The nodes as one Slurm job, each sized from its allocation.
  CLI::Option* slurm =
      cmd->add_option("--slurm", nodes, "Start the N nodes as one Slurm job (sbatch; one weftd node per task)")
          ->check(CLI::Range(1, 1024));
  cmd->add_option("--partition", flags.partition, "Slurm partition of the nodes' job")->needs(slurm);
  cmd->add_option("--sbatch-arg", flags.sbatch_args,
                  "An argument for sbatch, as --sbatch-arg=--time=1:00:00 (repeatable)")
      ->needs(slurm)
      ->allow_extra_args(false);
  cmd->add_option("--listen", flags.listen,
                  "The scheduler's address (default: the cluster's Unix socket, or a loopback port with TLS files); "
                  "beyond this machine see docs/runtime.md")
      ->needs(slurm);
  cmd->add_flag("--insecure", flags.insecure, "Clear text on a --listen address beyond loopback (no TLS)")
      ->needs(slurm);
  CLI::Option* cert = cmd->add_option("--tls-cert", flags.tls.cert, "PEM certificate of the scheduler (TLS)");
  CLI::Option* key = cmd->add_option("--tls-key", flags.tls.key, "PEM private key of --tls-cert");
  CLI::Option* ca = cmd->add_option("--tls-ca", flags.tls.ca, "PEM CA that signed --tls-cert, given to the nodes");
  // Absolute: the nodes read the CA from their own working directories.
  for (CLI::Option* o : {cert, key, ca}) {
    o->needs(slurm)->check(CLI::ExistingFile)->transform([](std::string p) {
      return std::filesystem::absolute(p).string();
    });
  }
  cert->needs(key, ca);
  key->needs(cert);
  ca->needs(cert);
  return slurm;
}

}  // namespace weft::cli
