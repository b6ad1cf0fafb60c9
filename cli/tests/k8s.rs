//! The Kubernetes launcher, checked offline. `scripts/launch/k8s-workers.yaml` is validated
//! against the Kubernetes API's OpenAPI schema by `kubernetes-validate --strict` (PyPI,
//! installed by scripts/install-test-tools.sh; no cluster needed), for Kubernetes 1.29, the
//! first release where the Job's `backoffLimitPerIndex` is on by default (alpha in 1.28), and
//! for the newest release the validator knows. Then the fields dancehall relies on are read
//! back with a YAML parser: an Indexed Job of pods that are never restarted in place, a grace
//! period longer than the worker's drain limit, a worker command line that `dancehall worker`
//! accepts, with `--exit-when-idle` and the token read from the Secret's read-only mount,
//! readable by its owner only.

mod common;

use std::path::PathBuf;
use std::process::{Command, Output};

use common::*;
use serde::Deserialize;

/// The oldest Kubernetes the manifest is for.
const KUBERNETES_MIN: &str = "1.29.0";
/// How long a worker keeps draining after SIGTERM.
const DRAIN_LIMIT_SECONDS: u64 = worker::DRAIN_LIMIT.as_secs();

fn manifest() -> PathBuf {
    repo().join("scripts/launch/k8s-workers.yaml")
}

/// `kubernetes-validate --strict [-k VERSION] FILE`; fails the test when the validator does not
/// run.
fn validate(file: &std::path::Path, version: Option<&str>) -> (Output, String) {
    let mut cmd = Command::new("kubernetes-validate");
    cmd.arg("--strict");
    if let Some(v) = version {
        cmd.args(["--kubernetes-version", v]);
    }
    let out = cmd.arg(file).output().unwrap_or_else(|e| {
        panic!(
            "cannot run kubernetes-validate ({e}): install it with scripts/install-test-tools.sh \
             (pip install kubernetes-validate)"
        )
    });
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out, text)
}

#[test]
fn manifest_validates_against_the_kubernetes_api_schema() {
    let install = "run scripts/install-test-tools.sh (pip install kubernetes-validate)";
    let found = tools::on_path("kubernetes-validate");
    if !tools::present(found, "kubernetes-validate", install) {
        return;
    }
    for version in [Some(KUBERNETES_MIN), None] {
        let (out, text) = validate(&manifest(), version);
        println!("k8s: {}", text.trim());
        assert!(out.status.success(), "kubernetes-validate: {text}");
        assert!(
            !text.contains("ERROR") && text.contains("passed for resource job/dancehall-workers"),
            "kubernetes-validate: {text}"
        );
    }
    // The validator does reject what the API would: a misspelt field, and a field newer than
    // the version validated against.
    let dir = tempfile::tempdir().unwrap();
    let yaml = std::fs::read_to_string(manifest()).unwrap();
    let misspelt = dir.path().join("misspelt.yaml");
    std::fs::write(&misspelt, yaml.replace("completionMode:", "completionMod:")).unwrap();
    let (out, text) = validate(&misspelt, Some(KUBERNETES_MIN));
    assert!(
        !out.status.success() && text.contains("completionMod"),
        "{text}"
    );
    let (out, text) = validate(&manifest(), Some("1.27.0"));
    assert!(
        !out.status.success() && text.contains("backoffLimitPerIndex"),
        "{text}"
    );
}

// ----- the fields dancehall relies on --------------------------------------------------------

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Job {
    api_version: String,
    kind: String,
    spec: JobSpec,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct JobSpec {
    completion_mode: String,
    completions: u32,
    parallelism: u32,
    backoff_limit_per_index: u32,
    template: PodTemplate,
}

#[derive(Deserialize)]
struct PodTemplate {
    spec: PodSpec,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct PodSpec {
    restart_policy: String,
    termination_grace_period_seconds: u64,
    containers: Vec<Container>,
    volumes: Vec<Volume>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Container {
    args: Vec<String>,
    volume_mounts: Vec<VolumeMount>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct VolumeMount {
    name: String,
    mount_path: String,
    #[serde(default)]
    read_only: bool,
}

#[derive(Deserialize)]
struct Volume {
    name: String,
    secret: Option<SecretVolume>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct SecretVolume {
    secret_name: String,
    default_mode: serde_norway::Value,
}

/// A file mode as Kubernetes reads it: its YAML parser follows YAML 1.1, where `0400` is octal;
/// a YAML 1.2 parser (this one) leaves such a scalar a string. Plain numbers are decimal.
fn kubernetes_mode(v: &serde_norway::Value) -> u32 {
    match v {
        serde_norway::Value::Number(n) => n.as_u64().and_then(|n| n.try_into().ok()),
        serde_norway::Value::String(s) if s.starts_with('0') => u32::from_str_radix(s, 8).ok(),
        _ => None,
    }
    .unwrap_or_else(|| panic!("defaultMode {v:?} is not a file mode"))
}

/// The value after `flag` in `args`.
fn flag<'a>(args: &'a [String], flag: &str) -> &'a str {
    let i = args
        .iter()
        .position(|a| a == flag)
        .unwrap_or_else(|| panic!("{flag} missing from the worker's args {args:?}"));
    args.get(i + 1)
        .unwrap_or_else(|| panic!("{flag} has no value in {args:?}"))
}

#[test]
fn manifest_runs_drainable_workers_with_the_token_from_the_secret() {
    let yaml = std::fs::read_to_string(manifest()).unwrap();
    let job: Job = serde_norway::from_str(&yaml).unwrap();
    assert_eq!(
        (job.api_version.as_str(), job.kind.as_str()),
        ("batch/v1", "Job")
    );
    let spec = &job.spec;
    // One index per worker; a failed pod is retried for its own index only, and never restarted
    // in place (a restarted container would count again from a fresh process anyway).
    assert_eq!(spec.completion_mode, "Indexed");
    assert!(spec.completions >= 1 && spec.parallelism >= 1);
    assert!(spec.backoff_limit_per_index >= 1);
    let pod = &spec.template.spec;
    assert_eq!(pod.restart_policy, "Never");
    // SIGTERM on deletion or eviction: the worker drains for up to DRAIN_LIMIT, and Kubernetes
    // must not SIGKILL it before.
    assert!(
        pod.termination_grace_period_seconds > DRAIN_LIMIT_SECONDS,
        "terminationGracePeriodSeconds {} <= the worker's drain limit {DRAIN_LIMIT_SECONDS} s",
        pod.termination_grace_period_seconds
    );
    assert_eq!(pod.containers.len(), 1);
    let worker = &pod.containers[0];
    let args = &worker.args;
    assert_eq!(args[0], "worker", "{args:?}");
    let idle: f64 = flag(args, "--exit-when-idle").parse().unwrap();
    assert!(idle > 0.0, "--exit-when-idle {idle}");
    // The token file lies in a read-only mount of the Secret, readable by its owner only.
    let token_file = PathBuf::from(flag(args, "--token-file"));
    let mount = worker
        .volume_mounts
        .iter()
        .find(|m| token_file.starts_with(&m.mount_path))
        .unwrap_or_else(|| panic!("--token-file {} is in no mount", token_file.display()));
    assert!(
        mount.read_only,
        "the token's mount {} is writable",
        mount.mount_path
    );
    let volume = pod
        .volumes
        .iter()
        .find(|v| v.name == mount.name)
        .unwrap_or_else(|| panic!("no volume {}", mount.name));
    let secret = volume
        .secret
        .as_ref()
        .unwrap_or_else(|| panic!("volume {} is not a Secret", volume.name));
    assert_eq!(secret.secret_name, "dancehall-token");
    let mode = kubernetes_mode(&secret.default_mode);
    assert_eq!(
        mode & 0o077,
        0,
        "defaultMode {mode:o} lets others read the token"
    );
    // Every option is one `dancehall worker` has.
    let help = run_expect(dancehall().args(["worker", "--help"]), 0);
    let help = String::from_utf8_lossy(&help.stdout);
    for opt in args.iter().filter(|a| a.starts_with("--")) {
        assert!(
            help.contains(&format!("{opt} ")),
            "`dancehall worker` has no {opt}"
        );
    }
}

#[test]
fn kubernetes_reads_a_leading_zero_mode_as_octal() {
    let v = |s: &str| serde_norway::from_str::<serde_norway::Value>(s).unwrap();
    assert_eq!(kubernetes_mode(&v("0400")), 0o400);
    assert_eq!(kubernetes_mode(&v("256")), 0o400);
    assert_eq!(kubernetes_mode(&v("0644")), 0o644);
}
