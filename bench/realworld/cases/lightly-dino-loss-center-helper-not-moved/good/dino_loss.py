"""DINO loss (reconstruction of lightly/loss/dino_loss.py) and a training step that uses it."""

import torch
import torch.nn.functional as F
from torch import nn
from torch.nn import Module



class DINOLoss(Module):
    def __init__(self, output_dim=64, warmup_teacher_temp=0.04, teacher_temp=0.04,
                 warmup_teacher_temp_epochs=30, student_temp=0.1, center_momentum=0.9, center_mode="mean"):
        super().__init__()
        self.warmup_teacher_temp_epochs = warmup_teacher_temp_epochs
        self.teacher_temp = teacher_temp
        self.student_temp = student_temp
        self.center_momentum = center_momentum
        self.register_buffer("center", torch.zeros(1, 1, output_dim))
        self.teacher_temp_schedule = torch.linspace(warmup_teacher_temp, teacher_temp, warmup_teacher_temp_epochs)

    def forward(self, teacher_out, student_out, epoch):
        if epoch < self.warmup_teacher_temp_epochs:
            teacher_temp = self.teacher_temp_schedule[epoch]
        else:
            teacher_temp = self.teacher_temp
        teacher_out = torch.stack(teacher_out)
        t_out = F.softmax((teacher_out - self.center) / teacher_temp, dim=-1)
        student_out = torch.stack(student_out)
        s_out = F.log_softmax(student_out / self.student_temp, dim=-1)
        loss = -torch.einsum("tbd,sbd->ts", t_out, s_out)
        loss.fill_diagonal_(0)
        n_terms = loss.numel() - loss.diagonal().numel()
        loss = loss.sum() / (n_terms * teacher_out.shape[1])
        self.update_center(teacher_out)
        return loss

    @torch.no_grad()
    def update_center(self, teacher_out):
        batch_center = torch.mean(teacher_out, dim=(0, 1), keepdim=True)
        self.center = self.center * self.center_momentum + batch_center * (1 - self.center_momentum)


def run(device):
    student = nn.Linear(8, 64).to(device)
    teacher = nn.Linear(8, 64).to(device)
    criterion = DINOLoss(output_dim=64).to(device)
    views = [torch.randn(4, 8, device=device) for _ in range(2)]
    loss = criterion([teacher(v) for v in views], [student(v) for v in views], epoch=0)
    loss.backward()


if __name__ == "__main__":
    run(torch.device("cuda" if torch.cuda.is_available() else "cpu"))
