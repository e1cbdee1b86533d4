"""What passes between the runner's processes: signed report frames (seal), the worker's leash on its judge
(leash), the control socket (channel), the go/done page (handshake), a call's tensors on a CPU (transport)
and on a GPU (devmem). docs/architecture.md lists them; docs/harness.md, "Processes", has the design."""
