"""Instruction-following generation pipeline (reconstruction of training/generate.py on a transformers-style Pipeline)."""

import torch
from torch import nn


class Pipeline:
    """Stands in for transformers.Pipeline: inputs go to self.device, outputs come back to the CPU."""

    def __init__(self, model, tokenizer, device="cpu", **generate_kwargs):
        self.model = model
        self.tokenizer = tokenizer
        self.device = torch.device(device)
        self.framework = "pt"
        self._forward_params = generate_kwargs

    def forward(self, model_inputs, **forward_params):
        model_inputs = {k: v.to(self.device) if torch.is_tensor(v) else v for k, v in model_inputs.items()}
        outputs = self._forward(model_inputs, **forward_params)
        return {k: v.to("cpu") if torch.is_tensor(v) else v for k, v in outputs.items()}

    def __call__(self, text):
        return self.postprocess(self.forward(self.preprocess(text), **self._forward_params))


class TinyCausalLM(nn.Module):
    def __init__(self, vocab=32, dim=8):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.head = nn.Linear(dim, vocab)

    @property
    def device(self):
        return self.head.weight.device

    @torch.no_grad()
    def generate(self, input_ids, attention_mask=None, pad_token_id=0, max_new_tokens=2, **kwargs):
        for _ in range(max_new_tokens):
            hidden = self.embed(input_ids)
            if attention_mask is not None:
                hidden = hidden * attention_mask.unsqueeze(-1)
                attention_mask = torch.cat([attention_mask, attention_mask[:, -1:]], dim=1)
            next_ids = self.head(hidden[:, -1]).argmax(-1, keepdim=True)
            input_ids = torch.cat([input_ids, next_ids], dim=1)
        return input_ids


class InstructionTextGenerationPipeline(Pipeline):
    def preprocess(self, instruction_text):
        prompt_text = f"### Instruction:\n{instruction_text}\n### Response:\n"
        inputs = self.tokenizer(prompt_text)
        inputs["instruction_text"] = instruction_text
        return inputs

    def _forward(self, model_inputs, **generate_kwargs):
        input_ids = model_inputs["input_ids"]
        attention_mask = model_inputs.get("attention_mask", None)
        if input_ids.shape[1] == 0:
            input_ids = None
            attention_mask = None
            in_b = 1
        else:
            in_b = input_ids.shape[0]
        generated_sequence = self.model.generate(
            input_ids=input_ids.to(self.model.device),
            attention_mask=attention_mask.to(self.model.device),
            pad_token_id=0,
            **generate_kwargs,
        )
        out_b = generated_sequence.shape[0]
        generated_sequence = generated_sequence.reshape(in_b, out_b // in_b, *generated_sequence.shape[1:])
        return {"generated_sequence": generated_sequence, "input_ids": input_ids}

    def postprocess(self, model_outputs):
        return model_outputs["generated_sequence"][0].numpy().tolist()


def toy_tokenizer(text):
    ids = torch.tensor([[ord(c) % 32 for c in text]])
    return {"input_ids": ids, "attention_mask": torch.ones_like(ids)}


def main():
    model = TinyCausalLM().to("cuda" if torch.cuda.is_available() else "cpu")  # device_map="auto" in the real script
    generate_text = InstructionTextGenerationPipeline(model=model, tokenizer=toy_tokenizer, max_new_tokens=2)
    print(generate_text("Explain tensors."))


if __name__ == "__main__":
    main()
