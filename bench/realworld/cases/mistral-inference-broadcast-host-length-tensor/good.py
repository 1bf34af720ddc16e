"""Interactive chat under torchrun (reconstruction of mistral_inference/main.py, interactive())."""

import os

import torch
import torch.distributed as dist


def is_torchrun():
    return all(var in os.environ for var in ("MASTER_ADDR", "MASTER_PORT", "RANK", "WORLD_SIZE"))


def encode(text):
    return [ord(ch) % 100 for ch in text]


def generate(token_lists, max_tokens):
    return [tokens[-1:] * max_tokens for tokens in token_lists]


def interactive(max_tokens=8, rounds=2):
    if is_torchrun():
        dist.init_process_group()
        torch.cuda.set_device(dist.get_rank())
        should_print = dist.get_rank() == 0
    else:
        should_print = True

    prompt = ""
    for _ in range(rounds):
        if should_print:
            prompt += input("Prompt: ")
            tokens = encode(prompt)
            length_tensor = torch.tensor([len(tokens)], dtype=torch.int)
        else:
            length_tensor = torch.tensor([0], dtype=torch.int)

        if is_torchrun():
            if dist.is_initialized() and dist.get_backend() == "nccl":
                length_tensor = length_tensor.cuda()
            dist.broadcast(length_tensor, src=0)

        if not should_print:
            tokens = int(length_tensor.item()) * [0]

        generated = generate([tokens], max_tokens=max_tokens)
        if should_print:
            print(generated[0])


if __name__ == "__main__":
    interactive()
