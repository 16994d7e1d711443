fn main() -> std::process::ExitCode {
    // First, while this is the only thread: ONNX Runtime's telemetry off for the whole process
    // (see `disable_telemetry` for why it takes an environment variable).
    segue::model::runtime::disable_telemetry();
    segue::cli::main()
}
