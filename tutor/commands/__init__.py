"""One module per `autograd-tutor` subcommand, each defining `command`."""
